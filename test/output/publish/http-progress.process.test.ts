import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPILE_PASSES, loadFixture } from '../../../src/compiler/index.js';
import { dataDirLayout, graphDbPath } from '../../../src/platform/storage/data-dir.js';
import { ok, startCliHttpFixture, type CliHttpFixture } from '../../helpers/cli-http.js';
import { seedGraph } from '../../helpers/seed.js';
import { SHOP, SHOP_DOMAIN } from './support.js';

/**
 * `nodectl publish --url` draws the daemon's progress (the streamed route): off a terminal as
 * plain stderr lines with counts, under --json nothing but the answer on stdout, and the exit
 * codes of the plain route (`npm run build` first: this spawns the daemon and the CLI).
 */
let fx: CliHttpFixture;
const passes = COMPILE_PASSES.length;

/** The website's graph, built in this process from the shop's items (the subject is publish, not ingest). */
async function buildGraph(items: ReturnType<typeof loadFixture>['items']): Promise<void> {
  const file = graphDbPath(dataDirLayout(fx.daemon.dataDir), fx.site.websiteId);
  for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
  await seedGraph(fx.daemon.dataDir, fx.site.websiteId, items);
}

beforeAll(async () => {
  fx = await startCliHttpFixture({ domain: SHOP_DOMAIN, tempPrefix: 'nodectl-publish-progress-' });
  await buildGraph(loadFixture(SHOP).items);
}, 120_000);
afterAll(() => fx?.stop());

describe('nodectl publish --url, with the daemon streaming its progress', () => {
  it('prints plain progress lines with counts on stderr, then the summary on stdout', async () => {
    const run = ok(await fx.remote(['publish', '--website', fx.site.websiteId]));
    const records = Number(/records: (\d+)/.exec(run.stdout)?.[1]);
    expect(records).toBeGreaterThan(10);
    const lines = run.stderr.split('\n').filter((l) => l !== '');
    expect(lines[0]).toBe(
      `publishing ${fx.site.websiteId} on ${fx.daemon.url}: the daemon compiles, checks and uploads it`,
    );
    const compile = lines.filter((l) => l.startsWith('compile: '));
    expect(compile[0]).toBe(`compile: ${passes} passes over the graph`);
    expect(compile.slice(1)).toEqual(
      COMPILE_PASSES.map((pass, i) =>
        expect.stringMatching(new RegExp(`^compile: ${i + 1} of ${passes} passes \\(${pass}\\), \\d+ records$`)),
      ),
    );
    // The last compile line counts the records the summary prints: one meaning of "records".
    expect(compile.at(-1)).toBe(`compile: ${passes} of ${passes} passes (manifest), ${records} records`);
    const steps = lines.filter((l) => /^\w+: \d+ object\(s\)$/.test(l)).map((l) => l.split(':')[0]);
    expect(steps).toEqual(['check', 'upload', 'patch', 'verify', 'latest', 'flip']);
    // The uploaded and carried-forward lines of upload and patch add up to the summary's.
    const placed = lines
      .map((l) => /^ {2}(\d+) uploaded, (\d+) carried forward$/.exec(l))
      .filter((m) => m !== null)
      .map((m) => [Number(m[1]), Number(m[2])]);
    expect(placed).toHaveLength(2);
    const summary = /\((\d+) uploaded, (\d+) carried forward\), records/.exec(run.stdout)!;
    expect([placed[0]![0]! + placed[1]![0]!, placed[0]![1]! + placed[1]![1]!]).toEqual([
      Number(summary[1]),
      Number(summary[2]),
    ]);
    expect(run.stdout).toMatch(/^published \w{26} \(\d{4}-\d{2}-\d{2}\.1\) to http/);
  }, 120_000);

  it('--json prints only the answer on stdout and no progress', async () => {
    const run = ok(await fx.remote(['--json', 'publish', '--website', fx.site.websiteId, '--force']));
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    expect(run.json()).toMatchObject({ alreadyLive: false, dryRun: false, recordCount: expect.any(Number) });
    expect(run.stderr).not.toMatch(/compile:|object\(s\)|publishing/);
  }, 120_000);

  it('a refusal after the compile started keeps its exit code (3) and its error', async () => {
    await buildGraph(loadFixture(SHOP).items.slice(0, 2));
    const run = await fx.remote(['publish', '--website', fx.site.websiteId]);
    expect(run.exitCode, run.stderr).toBe(3);
    expect(run.stderr).toMatch(/compile: \d+ passes over the graph/);
    expect(run.stderr).toContain('publish.drop_gate');
    const json = await fx.remote(['--json', 'publish', '--website', fx.site.websiteId]);
    expect(json.exitCode).toBe(3);
    expect(json.json()).toMatchObject({ ok: false, error: { code: 'publish.drop_gate' } });
  }, 120_000);
});
