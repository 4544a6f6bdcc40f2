import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { computeItemChecksum } from '../../src/platform/contract/checksum.js';
import { buildGraphFromItems } from '../../src/ingest/graph/build-from-items.js';
import { loadWebsiteInfo } from '../../src/control/records/load-website.js';
import { openControlDb } from '../../src/platform/storage/control.js';
import { dataDirLayout, graphDbPath } from '../../src/platform/storage/data-dir.js';
import { runNodectl } from '../helpers/cli.js';
import { runNodectlInProcess } from '../helpers/cli-in-process.js';
import { makeTempDir, PROJECT_ROOT } from '../helpers/paths.js';
import { seedDataDir } from '../helpers/seed.js';

// The compile and golden runs use the real binary (`npm run build` first), the others the CLI in this process.
const tmp = makeTempDir('nodectl-compile-cli-');
afterAll(tmp.cleanup);

describe('nodectl compile / golden / validate', () => {
  it('compiles a fixture twice to the same bytes, with --build-time moving only the version', async () => {
    const a = join(tmp.dir, 'a');
    const b = join(tmp.dir, 'b');
    const first = await runNodectl(['--json', 'compile', join(PROJECT_ROOT, 'fixtures/blog'), '--out', a], {
      cwd: PROJECT_ROOT,
    });
    expect(first.exitCode, first.stderr).toBe(0);
    const result = first.json();
    expect(result.node_version_label).toBe('2026-03-05.1');
    expect(result.files.at(-1).path).toBe('manifest.json');
    await runNodectl(['compile', join(PROJECT_ROOT, 'fixtures/blog'), '--out', b], { cwd: PROJECT_ROOT });
    for (const file of readdirSync(a))
      expect(readFileSync(join(b, file), 'utf8'), file).toBe(readFileSync(join(a, file), 'utf8'));
    const c = await runNodectl([
      '--json',
      'compile',
      join(PROJECT_ROOT, 'fixtures/blog'),
      '--out',
      join(tmp.dir, 'c'),
      '--build-time',
      '2026-04-01T00:00:00Z',
    ]);
    expect(c.json().node_version_label).toBe('2026-04-01.1');
    expect(c.json().generated_at).toBe('2026-04-01T00:00:00Z');
  });

  it('compiles against --previous: label sequence and changes', async () => {
    const prev = join(tmp.dir, 'p1');
    await runNodectlInProcess(['compile', join(PROJECT_ROOT, 'fixtures/docs'), '--out', prev]);
    const next = await runNodectlInProcess([
      '--json',
      'compile',
      join(PROJECT_ROOT, 'fixtures/docs'),
      '--out',
      join(tmp.dir, 'p2'),
      '--previous',
      prev,
    ]);
    expect(next.exitCode, next.stderr).toBe(0);
    expect(next.json().node_version_label).toBe('2026-03-12.2');
    expect(readFileSync(join(tmp.dir, 'p2', 'changes.jsonl'), 'utf8')).toBe('');
  });

  it('validate exits 0 on a good node and 1 with a readable report on a broken one', async () => {
    const good = await runNodectlInProcess(['validate', join(PROJECT_ROOT, 'golden/shop')]);
    expect(good.exitCode).toBe(0);
    expect(good.stdout).toMatch(/^valid: /);
    const broken = join(tmp.dir, 'a');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(broken, 'sources.jsonl'), 'not json\n');
    const bad = await runNodectlInProcess(['validate', broken]);
    expect(bad.exitCode).toBe(1);
    expect(bad.stdout).toContain('[file.checksum_mismatch] sources.jsonl');
    expect(bad.stdout).toContain('[json.invalid] sources.jsonl:1');
    const json = await runNodectlInProcess(['--json', 'validate', broken]);
    expect(json.json()).toMatchObject({ ok: false });
  });

  it('golden check passes on the committed golden and fails with a diff on a changed one', async () => {
    const ok = await runNodectl(['golden', 'check'], { cwd: PROJECT_ROOT });
    expect(ok.exitCode, ok.stdout + ok.stderr).toBe(0);
    const golden = join(tmp.dir, 'golden');
    const { cpSync, writeFileSync } = await import('node:fs');
    cpSync(join(PROJECT_ROOT, 'golden'), golden, { recursive: true });
    const llms = join(golden, 'minimal', 'llms.txt');
    writeFileSync(llms, readFileSync(llms, 'utf8').replace('# minimal.example', '# Changed'));
    const bad = await runNodectl(['golden', 'check', '--golden', golden], { cwd: PROJECT_ROOT });
    expect(bad.exitCode).toBe(1);
    expect(bad.stdout).toContain('minimal/llms.txt: changed');
    expect(bad.stdout).toContain('- # Changed');
    expect(bad.stdout).toContain('+ # minimal.example');
  });

  it('compile --website leaves out a record that fails its schema and lists it (human and --json), and keeps a foreign canonical_url out of the node (regression: one bad predicate failed the whole website)', async () => {
    const dataDir = join(tmp.dir, 'data');
    const { websiteId } = await seedDataDir(dataDir, { domain: 'shop.example' });
    const layout = dataDirLayout(dataDir);
    const control = openControlDb(layout);
    const site = loadWebsiteInfo(control, websiteId)!;
    control.close();
    const page = (id: string, url: string, title: string, extra: Record<string, string> = {}) => {
      const html = `<html><head><title>${title}</title></head><body><h1>${title}</h1><p>${title} is a sturdy thing we sell in the shop.</p></body></html>`;
      return {
        type: 'page' as const,
        id,
        url,
        html,
        ...extra,
        checksum: computeItemChecksum({ type: 'page', url, html }),
      };
    };
    const items = [
      page('page:mug', 'https://shop.example/blue-mug', 'Blue Mug', { canonical_url: 'https://evil.example/landing' }),
      page('page:about', 'https://shop.example/about', 'About us'),
    ];
    const graph = buildGraphFromItems(items, site, {
      file: graphDbPath(layout, websiteId),
      receivedAt: '2026-03-01T00:00:00Z',
    });
    // A record the extractor should never have produced: the compiler is the second line of defence.
    const badFact = graph.db
      .prepare(`SELECT fact_id FROM fact_candidates WHERE predicate = 'description' ORDER BY fact_id LIMIT 1`)
      .pluck()
      .get() as string;
    graph.db.prepare(`UPDATE fact_candidates SET predicate = 'Bad Predicate' WHERE fact_id = ?`).run(badFact);
    graph.close();

    const out = join(tmp.dir, 'website-node');
    const json = await runNodectlInProcess(
      ['--json', 'compile', '--website', websiteId, '--out', out, '--build-time', '2026-03-02T00:00:00Z'],
      { dataDir },
    );
    expect(json.exitCode, json.stderr).toBe(0);
    const result = json.json();
    expect(result.rejected).toContainEqual({
      file: 'facts.en.jsonl',
      id: badFact,
      path: 'predicate',
      message: 'must be snake_case',
    });
    expect(result.counts.rejected.facts).toBe(
      result.rejected.filter((r: { file: string }) => r.file.startsWith('facts.')).length,
    );
    expect(result.rejected_total).toBe(result.rejected.length);
    for (const file of readdirSync(out)) {
      const text = readFileSync(join(out, file), 'utf8');
      expect(text, file).not.toContain('evil.example');
      expect(text, file).not.toContain(badFact);
    }
    expect(readFileSync(join(out, 'sitemap-ai.xml'), 'utf8')).toContain('<loc>https://shop.example/blue-mug</loc>');
    const valid = await runNodectlInProcess(['validate', out]);
    expect(valid.exitCode, valid.stdout).toBe(0);

    const human = await runNodectlInProcess(
      [
        'compile',
        '--website',
        websiteId,
        '--out',
        join(tmp.dir, 'website-node-2'),
        '--build-time',
        '2026-03-02T00:00:00Z',
      ],
      { dataDir },
    );
    expect(human.exitCode, human.stderr).toBe(0);
    expect(human.stdout).toMatch(
      new RegExp(
        `^rejected \\(left out of the node, references to them removed\\): ${result.rejected_total} records: `,
        'm',
      ),
    );
    expect(human.stdout).toContain(`  facts.en.jsonl ${badFact} predicate: must be snake_case`);
  });

  it('refuses a bad call with exit 2', async () => {
    expect((await runNodectlInProcess(['compile', join(PROJECT_ROOT, 'fixtures/blog')])).exitCode).toBe(2);
    expect((await runNodectlInProcess(['compile', '--out', tmp.dir])).exitCode).toBe(2);
  });
});
