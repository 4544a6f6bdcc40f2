import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runNodectl } from '../helpers/cli.js';
import { makeTempDir, PROJECT_ROOT } from '../helpers/paths.js';

// Runs the real binary: `npm run build` first.
const tmp = makeTempDir('nodectl-compile-cli-');
afterAll(tmp.cleanup);

describe('nodectl compile / golden / validate', () => {
  it('compiles a fixture twice to the same bytes, with --build-time moving only the version', async () => {
    const a = join(tmp.dir, 'a');
    const b = join(tmp.dir, 'b');
    const first = await runNodectl(['--json', 'compile', join(PROJECT_ROOT, 'fixtures/blog'), '--out', a], { cwd: PROJECT_ROOT });
    expect(first.exitCode, first.stderr).toBe(0);
    const result = first.json();
    expect(result.node_version_label).toBe('2026-03-05.1');
    expect(result.files.at(-1).path).toBe('manifest.json');
    await runNodectl(['compile', join(PROJECT_ROOT, 'fixtures/blog'), '--out', b], { cwd: PROJECT_ROOT });
    for (const file of readdirSync(a)) expect(readFileSync(join(b, file), 'utf8'), file).toBe(readFileSync(join(a, file), 'utf8'));
    const c = await runNodectl(['--json', 'compile', join(PROJECT_ROOT, 'fixtures/blog'), '--out', join(tmp.dir, 'c'), '--build-time', '2026-04-01T00:00:00Z']);
    expect(c.json().node_version_label).toBe('2026-04-01.1');
    expect(c.json().generated_at).toBe('2026-04-01T00:00:00Z');
  });

  it('compiles against --previous: label sequence and changes', async () => {
    const prev = join(tmp.dir, 'p1');
    await runNodectl(['compile', join(PROJECT_ROOT, 'fixtures/docs'), '--out', prev]);
    const next = await runNodectl(['--json', 'compile', join(PROJECT_ROOT, 'fixtures/docs'), '--out', join(tmp.dir, 'p2'), '--previous', prev]);
    expect(next.exitCode, next.stderr).toBe(0);
    expect(next.json().node_version_label).toBe('2026-03-12.2');
    expect(readFileSync(join(tmp.dir, 'p2', 'changes.jsonl'), 'utf8')).toBe('');
  });

  it('validate exits 0 on a good node and 1 with a readable report on a broken one', async () => {
    const good = await runNodectl(['validate', join(PROJECT_ROOT, 'golden/shop')]);
    expect(good.exitCode).toBe(0);
    expect(good.stdout).toMatch(/^valid: /);
    const broken = join(tmp.dir, 'a');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(broken, 'sources.jsonl'), 'not json\n');
    const bad = await runNodectl(['validate', broken]);
    expect(bad.exitCode).toBe(1);
    expect(bad.stdout).toContain('[file.checksum_mismatch] sources.jsonl');
    expect(bad.stdout).toContain('[json.invalid] sources.jsonl:1');
    const json = await runNodectl(['--json', 'validate', broken]);
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

  it('refuses a bad call with exit 2', async () => {
    expect((await runNodectl(['compile', join(PROJECT_ROOT, 'fixtures/blog')])).exitCode).toBe(2);
    expect((await runNodectl(['compile', '--out', tmp.dir])).exitCode).toBe(2);
  });
});
