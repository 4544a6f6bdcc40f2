import Database from 'better-sqlite3';
import { execa } from 'execa';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteConnector } from '../../../src/control/connectors/connectors.js';
import { runNodectlInProcess } from '../../helpers/cli-in-process.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/daemon.js';
import { makeTempDir, NODECTL_BIN } from '../../helpers/paths.js';
import { seedDataDir, withControlDb } from '../../helpers/seed.js';
import { until } from '../../helpers/until.js';
import { createTestConnector, type Connector } from './support.js';
import { acceptedRows } from '../../helpers/accepted-rows.js';

/** The URL of a port nothing listens on: one the system gave out and that was closed again. */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

let daemon: TestDaemon;
let temp: { dir: string; cleanup: () => void };
let content: { dir: string; cleanup: () => void };
let websiteId: string;
let connector: Connector;

/** What the daemon holds of each item pushed: its raw_items row, or its inbox row (state 'inbox') before its job moved it. */
function rows(): Array<{ item_id: string; item_type: string; url: string; state: string; language: string | null }> {
  const open = (file: string) => new Database(join(temp.dir, 'graphs', file), { readonly: true, fileMustExist: true });
  const graph = open(`${websiteId}.sqlite`);
  const inbox = open(`${websiteId}.inbox.sqlite`);
  try {
    return acceptedRows({ get: () => graph, inbox: () => inbox }, websiteId).map(
      ({ item_id, item_type, url, state, language }) => ({ item_id, item_type, url, state, language }),
    );
  } finally {
    graph.close();
    inbox.close();
  }
}
const push = (args: string[], env: Record<string, string> = {}) =>
  runNodectlInProcess(['push', ...args, '--url', daemon.url, '--website', websiteId, '--domain', 'example.com'], {
    env: { NODECTL_CONNECTOR_TOKEN: connector.token, ...env },
  });

beforeAll(async () => {
  temp = makeTempDir('nodectl-push-');
  content = makeTempDir('nodectl-push-content-');
  ({ websiteId } = await seedDataDir(temp.dir));
  connector = await createTestConnector(temp.dir, websiteId, 'page,post');
  daemon = await startTestDaemon({ dataDir: temp.dir });
  mkdirSync(join(content.dir, 'blog'));
  writeFileSync(join(content.dir, 'index.md'), '---\ntitle: Home\nlanguage: en\n---\n# Welcome\n\nHello there.\n');
  writeFileSync(join(content.dir, 'blog', 'first.md'), '---\ntitle: "First post"\ntype: post\n---\nA post.\n');
  writeFileSync(
    join(content.dir, 'about.html'),
    '<html lang="de"><head><title>Über uns</title></head><body><p>Wir</p></body></html>',
  );
  writeFileSync(join(content.dir, 'shop.json'), JSON.stringify({ title: 'Shop', hours: '9-5' }));
}, 60_000);
afterAll(async () => {
  await daemon?.stop();
  temp?.cleanup();
  content?.cleanup();
});

describe('nodectl push', () => {
  it('maps Markdown, HTML and JSON files to items and pushes them (exit 0)', async () => {
    const run = await push([content.dir, '--json']);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.json()).toMatchObject({ accepted: 4, skipped: 0, errored: 0, failedRequests: 0 });
    // The daemon's worker may already have processed the items; the mapping is what is under test.
    const stored = rows();
    for (const row of stored) expect(['inbox', 'pending', 'processed']).toContain(row.state);
    expect(stored.map(({ state: _state, ...row }) => row)).toEqual([
      { item_id: 'file:about.html', item_type: 'page', url: 'https://example.com/about', language: 'de' },
      { item_id: 'file:blog/first.md', item_type: 'post', url: 'https://example.com/blog/first', language: 'en' },
      { item_id: 'file:index.md', item_type: 'page', url: 'https://example.com/', language: 'en' },
      { item_id: 'file:shop.json', item_type: 'page', url: 'https://example.com/shop', language: 'en' },
    ]);
  });

  it('a re-run on unchanged files accepts nothing: everything is skipped unchanged_checksum', async () => {
    const run = await push([content.dir]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain('accepted 0, skipped 4, errored 0');
    // Not a terminal: plain progress lines, never a bar (it drew one character per line in a zero-width pty).
    expect(run.stderr).toMatch(/^pushed 4 of 4: accepted 0, skipped 4, errored 0$/m);
    expect(run.stderr).not.toMatch(/[█░]/);
    expect(run.stdout).toMatch(/^pushed 4 of 4$/m);
  });

  it('honours NODECTL_URL when --url is not given (it always pushed to 127.0.0.1:8787)', async () => {
    const run = await runNodectlInProcess(
      ['push', content.dir, '--website', websiteId, '--domain', 'example.com', '--json'],
      {
        env: { NODECTL_CONNECTOR_TOKEN: connector.token, NODECTL_URL: daemon.url },
      },
    );
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.json()).toMatchObject({ total: 4, received: 4, notSent: 0 });
  });

  it('stops before reading any file when the daemon is down, naming NODECTL_URL (it printed four ECONNREFUSED lines, then "pushed 2000/2000")', async () => {
    const closed = await closedPortUrl();
    const messy = makeTempDir('nodectl-push-down-');
    try {
      writeFileSync(join(messy.dir, 'broken.json'), '{ not json');
      const run = await runNodectlInProcess(['push', messy.dir, '--website', websiteId, '--domain', 'example.com'], {
        env: { NODECTL_CONNECTOR_TOKEN: connector.token, NODECTL_URL: closed },
      });
      expect(run.exitCode).toBe(1);
      expect(run.stderr).toMatch(
        new RegExp(
          `^nodectl: \\[network\\.error\\] cannot reach the daemon at ${closed.replace(/\./g, '\\.')} \\(NODECTL_URL\\): ECONNREFUSED`,
          'm',
        ),
      );
      // The files were never read: no note about the broken one, no progress, no summary.
      expect(run.stderr).not.toMatch(/broken\.json|pushed/);
      expect(run.stdout).toBe('');
    } finally {
      messy.cleanup();
    }
  });

  it('exits 1 when an item errors (url on another host) and names it', async () => {
    const bad = makeTempDir('nodectl-push-bad-');
    try {
      writeFileSync(join(bad.dir, 'x.md'), '---\nurl: https://elsewhere.org/x\n---\nText\n');
      const run = await push([bad.dir]);
      expect(run.exitCode).toBe(1);
      expect(run.stdout).toMatch(/error file:x\.md: \[validation\.failed\] url: host elsewhere\.org/);
    } finally {
      bad.cleanup();
    }
  });

  it('pushes a .jsonl file of items', async () => {
    const file = join(content.dir, '..', `items-${Date.now()}.jsonl`);
    writeFileSync(
      file,
      JSON.stringify({ type: 'page', id: 'jsonl:1', url: 'https://example.com/j1', text: 'one' }) + '\n',
    );
    try {
      const run = await push([file, '--json']);
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.json()).toMatchObject({ accepted: 1 });
    } finally {
      rmSync(file);
    }
  });

  it('exits 2 on bad usage: no token, missing source', async () => {
    const noToken = await runNodectlInProcess(
      ['push', content.dir, '--url', daemon.url, '--website', websiteId, '--domain', 'example.com'],
      { env: { NODECTL_CONNECTOR_TOKEN: '' } },
    );
    expect(noToken.exitCode).toBe(2);
    expect(noToken.stderr).toMatch(/connector token is required/);
    const missing = await push(['/definitely/not/here']);
    expect(missing.exitCode).toBe(2);
  });

  it('exits 1 when requests fail (revoked token)', async () => {
    const c = await createTestConnector(temp.dir, websiteId);
    await withControlDb(temp.dir, (db) => deleteConnector(db, c.id));
    const run = await push([content.dir], { NODECTL_CONNECTOR_TOKEN: c.token });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/auth\.token_revoked/);
    // Only what the daemon acknowledged counts as pushed; the rest is said to be not sent, and why.
    expect(run.stdout).toMatch(/^pushed 0 of 4; 4 not sent: \[auth\.token_revoked\] /m);
  });

  it('--watch pushes changes and deletions as they happen', async () => {
    const child = execa(
      'node',
      [
        NODECTL_BIN,
        'push',
        content.dir,
        '--watch',
        '--url',
        daemon.url,
        '--website',
        websiteId,
        '--domain',
        'example.com',
        '--json',
      ],
      {
        env: { NODECTL_CONNECTOR_TOKEN: connector.token },
        reject: false,
      },
    );
    let err = '';
    child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    // Each step waits for the line the watcher prints once it is done (plain progress lines: not a TTY).
    // The start pushes the folder as it is (pushed n of 4); then each change is a push of its own.
    const printed = (line: RegExp, what: string) =>
      until(child.stderr!, 'data', () => err.split('\n').some((l) => line.test(l)), what, 20_000).catch((e: Error) => {
        throw new Error(`${e.message}; stderr:\n${err}`);
      });
    try {
      await printed(/^watching .* for changes \(Ctrl-C to stop\)$/, 'the watcher');
      writeFileSync(join(content.dir, 'blog', 'second.md'), '---\ntype: post\n---\nSecond post.\n');
      await printed(/^pushed 1 of 1: /, 'the new file');
      expect(rows().some((r) => r.item_id === 'file:blog/second.md')).toBe(true);
      rmSync(join(content.dir, 'about.html'));
      await printed(/^deleted 1$/, 'the deletion');
      expect(rows().find((r) => r.item_id === 'file:about.html')?.state).toBe('tombstoned');
    } finally {
      child.kill('SIGINT');
    }
    const result = await child;
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(String(result.stdout))).toMatchObject({ accepted: 1, deleted: 1, errored: 0 });
  });
});
