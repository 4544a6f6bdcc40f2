import Database from 'better-sqlite3';
import { existsSync, mkdirSync, readdirSync, readFileSync, truncateSync, writeFileSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNodectlInProcess, type CliRun } from '../helpers/cli-in-process.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { makeTempDir, PROJECT_ROOT } from '../helpers/paths.js';
import { seedApiKey, seedConnector, seedDataDir, type SeededSite } from '../helpers/seed.js';

/**
 * `nodectl backup` of a running daemon's data directory while it ingests, `nodectl restore` into a
 * new folder, and a daemon started on the copy: the same websites, versions, API key and connector
 * token, every database passing PRAGMA integrity_check. A refused restore leaves the target as it was.
 */
const BLOG = { domain: 'blog.fieldnotes.example', items: join(PROJECT_ROOT, 'fixtures', 'blog', 'items.jsonl') };
const DOCS = { domain: 'docs.tidepool.example', items: join(PROJECT_ROOT, 'fixtures', 'docs', 'items.jsonl') };

const temp = makeTempDir('nodectl-backup-');
let daemon: TestDaemon;
let restored: TestDaemon | undefined;
let blog: SeededSite & { apiKey: string; token: string };
let docs: SeededSite & { apiKey: string; token: string };
let liveVersion: string;
const archive = join(temp.dir, 'instance.tar');
const restoredDir = join(temp.dir, 'restored');

function ok(run: CliRun): CliRun {
  if (run.exitCode !== 0) throw new Error(`exit ${run.exitCode}\n${run.stdout}\n${run.stderr}`);
  return run;
}

const push = (url: string, site: { websiteId: string; token: string; domain: string }, items: string) =>
  runNodectlInProcess(['push', items, '--url', url, '--website', site.websiteId, '--domain', site.domain], {
    env: { NODECTL_CONNECTOR_TOKEN: site.token },
  });

async function seedSite(dataDir: string, domain: string) {
  const site = await seedDataDir(dataDir, { domain });
  const apiKey = await seedApiKey(dataDir, site.orgId, 'organization_admin');
  const { token } = await seedConnector(dataDir, site.websiteId, {
    type: 'files',
    sourceTypes: ['page', 'post', 'profile', 'collection', 'doc'],
  });
  return { ...site, apiKey, token };
}

function integrity(file: string): string {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return String(db.pragma('integrity_check', { simple: true }));
  } finally {
    db.close();
  }
}

function count(file: string, table: string): number {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  daemon = await startTestDaemon();
  blog = await seedSite(daemon.dataDir, BLOG.domain);
  docs = await seedSite(daemon.dataDir, DOCS.domain);
  const remote = ['--url', daemon.url, '--api-key', blog.apiKey, '--website', blog.websiteId];
  ok(await push(daemon.url, blog, BLOG.items));
  ok(await runNodectlInProcess(['jobs', 'wait', ...remote, '--timeout', '120']));
  ok(await runNodectlInProcess(['publish', ...remote]));
  liveVersion = ok(await runNodectlInProcess(['--json', 'versions', ...remote])).json()[0].node_version;
}, 180_000);

afterAll(async () => {
  await restored?.stop();
  await daemon?.stop();
  temp.cleanup();
});

describe('nodectl backup and restore', () => {
  it('backs up a daemon while a push is ingested, and a daemon on the restored copy serves the same instance', async () => {
    // The docs push runs while the backup is taken: the daemon writes its graph and the job queue meanwhile.
    const background = push(daemon.url, docs, DOCS.items);
    const backup = ok(
      await runNodectlInProcess(['--json', 'backup', archive, '--with-nodes'], { dataDir: daemon.dataDir }),
    );
    ok(await background);
    expect(backup.json()).toMatchObject({ archive, websites: expect.arrayContaining([blog.websiteId]) });
    expect(readFileSync(archive).subarray(257, 262).toString()).toBe('ustar');

    const restore = ok(await runNodectlInProcess(['--json', 'restore', archive], { dataDir: restoredDir }));
    expect(restore.json()).toMatchObject({ dataDir: restoredDir, withNodes: true });
    expect(readdirSync(temp.dir).filter((name) => name.startsWith('.'))).toEqual([]);
    expect(integrity(join(restoredDir, 'control.sqlite'))).toBe('ok');
    for (const name of readdirSync(join(restoredDir, 'graphs')))
      expect(integrity(join(restoredDir, 'graphs', name)), name).toBe('ok');
    expect(count(join(restoredDir, 'graphs', `${blog.websiteId}.sqlite`), 'raw_items')).toBeGreaterThan(0);
    // The inbox goes with its graph: what was acknowledged and not yet moved is in the archive too.
    expect(readdirSync(join(restoredDir, 'graphs'))).toContain(`${blog.websiteId}.inbox.sqlite`);

    restored = await startTestDaemon({ dataDir: restoredDir });
    const remote = (key: string, site: string) => ['--url', restored!.url, '--api-key', key, '--website', site];
    // The API key works, and the website and its live version are there.
    const websites = ok(
      await runNodectlInProcess(['--json', 'websites', 'list', '--url', restored.url, '--api-key', blog.apiKey]),
    ).json();
    expect(JSON.stringify(websites)).toContain(blog.websiteId);
    const versions = ok(
      await runNodectlInProcess(['--json', 'versions', ...remote(blog.apiKey, blog.websiteId)]),
    ).json();
    expect(versions[0]).toMatchObject({ node_version: liveVersion, live: true });
    // The connector token works: its secret and the master key came along.
    ok(await push(restored.url, blog, BLOG.items));
    ok(await push(restored.url, docs, DOCS.items));
    ok(await runNodectlInProcess(['jobs', 'wait', ...remote(docs.apiKey, docs.websiteId), '--timeout', '120']));
    ok(await runNodectlInProcess(['publish', ...remote(docs.apiKey, docs.websiteId)]));
  });

  it('refuses a non-empty data directory and leaves it as it was', async () => {
    const target = join(temp.dir, 'busy');
    mkdirSync(target);
    writeFileSync(join(target, 'keep.txt'), 'mine');
    const run = await runNodectlInProcess(['restore', archive], { dataDir: target });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain('is not empty');
    expect(readdirSync(target)).toEqual(['keep.txt']);
  });

  it('refuses a damaged archive and leaves the empty target empty, with nothing beside it', async () => {
    const damaged = join(temp.dir, 'damaged.tar');
    copyFileSync(archive, damaged);
    truncateSync(damaged, 4096);
    const target = join(temp.dir, 'empty');
    mkdirSync(target);
    const before = readdirSync(temp.dir).sort();
    const run = await runNodectlInProcess(['restore', damaged], { dataDir: target });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain('nothing was restored');
    expect(readdirSync(target)).toEqual([]);
    expect(readdirSync(temp.dir).sort()).toEqual(before);
  });

  it('refuses to overwrite an archive and a data directory without control.sqlite', async () => {
    const again = await runNodectlInProcess(['backup', archive], { dataDir: daemon.dataDir });
    expect(again).toMatchObject({ exitCode: 1, stderr: expect.stringContaining('exists') });
    const none = join(temp.dir, 'none');
    const missing = await runNodectlInProcess(['backup', join(temp.dir, 'x.tar')], { dataDir: none });
    expect(missing).toMatchObject({ exitCode: 1, stderr: expect.stringContaining('holds no control.sqlite') });
    expect(existsSync(join(temp.dir, 'x.tar'))).toBe(false);
  });
});
