import Database from 'better-sqlite3';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../../helpers/daemon.js';
import { makeTempDir } from '../../helpers/paths.js';
import { seedDataDir } from '../../helpers/seed.js';
import { poll } from '../../helpers/until.js';
import { acceptedRows } from '../../helpers/accepted-rows.js';
import { createTestConnector, pageItem, signedPost, type Connector } from './support.js';

let temp: { dir: string; cleanup: () => void };
let websiteId: string;
let connector: Connector;
let daemon: TestDaemon | undefined;

beforeAll(async () => {
  temp = makeTempDir('nodectl-kill-');
  ({ websiteId } = await seedDataDir(temp.dir));
  connector = await createTestConnector(temp.dir, websiteId);
}, 60_000);
afterAll(async () => {
  await daemon?.stop();
  temp?.cleanup();
});

function readControl<T>(sql: string, ...params: unknown[]): T | undefined {
  const db = new Database(join(temp.dir, 'control.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).get(...params) as T | undefined;
  } finally {
    db.close();
  }
}

const idempotencyRow = (key: string) =>
  readControl<{ state: string; owner: string | null }>('SELECT * FROM idempotency WHERE idempotency_key = ?', key);

// The daemon is another process and announces neither below: its control database is polled.
const waitFor = <T>(probe: () => T | undefined, what: string) => poll(probe, what, { timeoutMs: 15_000 });

describe('a daemon killed mid-request', () => {
  it('leaves no in-flight Idempotency-Key behind: the restarted daemon answers the retry normally (bug: 503 for about 300 s)', async () => {
    daemon = await startTestDaemon({ dataDir: temp.dir });
    const send = (url: string) =>
      signedPost(url, '/v1/ingest/item', {
        token: connector.token,
        websiteId,
        body: { website_id: websiteId, item: pageItem('killed:1') },
        idempotencyKey: 'killed-mid-request',
      });
    // Creates the website's inbox database, where a push writes, so this test can hold its write lock.
    expect(
      (
        await signedPost(daemon.url, '/v1/ingest/item', {
          token: connector.token,
          websiteId,
          body: { website_id: websiteId, item: pageItem('warm:1') },
        })
      ).status,
    ).toBe(200);
    // Its content.ingest job must not be the one stalled by the lock below.
    await waitFor(
      () =>
        readControl<{ n: number }>(
          "SELECT count(*) AS n FROM jobs WHERE kind = 'content.ingest' AND state IN ('queued','running')",
        )!.n === 0
          ? true
          : undefined,
      'the content.ingest job',
    );

    // Hold the inbox database's write lock: the request stops inside its transaction, in flight.
    const holder = new Database(join(temp.dir, 'graphs', `${websiteId}.inbox.sqlite`));
    holder.exec('BEGIN IMMEDIATE');
    const pid = daemon.process.pid!;
    let inFlight;
    try {
      void send(daemon.url).catch(() => undefined);
      inFlight = await waitFor(() => idempotencyRow('killed-mid-request'), 'the in-flight idempotency record');
      await daemon.stop('SIGKILL');
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    expect(inFlight.state).toBe('in_flight');

    daemon = await startTestDaemon({ dataDir: temp.dir });
    const afterRestart = idempotencyRow('killed-mid-request');
    const retried = await send(daemon.url);
    expect(retried.status, JSON.stringify(retried.json)).toBe(200);
    expect(retried.json.data).toMatchObject({ id: 'killed:1', status: 'accepted' });
    const again = await send(daemon.url);
    expect(again.headers['idempotent-replayed']).toBe('true');
    // The record named the killed process, and the start-up sweep forgot it before any retry came.
    expect(inFlight.owner).toMatch(new RegExp(`^${hostname().replace(/\./g, '\\.')}:${pid}:[0-9A-HJKMNP-TV-Z]{26}$`));
    expect(afterRestart).toBeUndefined();
  }, 60_000);

  it('acknowledges a push while the graph file is locked, and keeps it: in the inbox when killed, processed after the restart', async () => {
    // The killed daemon's running jobs are claimed again once their lease lapses: 3 s here, not 60.
    const env = { NODECTL_JOB_LEASE_SECONDS: '3' };
    daemon = await startTestDaemon({ dataDir: temp.dir, env });
    const push = (batch: number) =>
      signedPost(daemon!.url, '/v1/ingest/batch', {
        token: connector.token,
        websiteId,
        body: { website_id: websiteId, items: Array.from({ length: 50 }, (_, i) => pageItem(`acked:${batch}:${i}`)) },
      });
    // Creates the website's files (the graph's may not exist yet for this test's pushes to lock).
    expect((await push(0)).status).toBe(200);
    // Another process holds the graph file's write lock: no job can move anything out of the inbox.
    const holder = new Database(join(temp.dir, 'graphs', `${websiteId}.sqlite`));
    holder.exec('BEGIN IMMEDIATE');
    let answer;
    try {
      answer = await push(1);
      await daemon.stop('SIGKILL');
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    expect(answer.status).toBe(200);
    const accepted = (answer.json.data.results as Array<{ id: string; status: string }>).flatMap((r) =>
      r.status === 'accepted' ? [r.id] : [],
    );
    expect(accepted).toHaveLength(50);
    const held = () => {
      const open = (file: string) =>
        new Database(join(temp.dir, 'graphs', file), { readonly: true, fileMustExist: true });
      const graph = open(`${websiteId}.sqlite`);
      const inbox = open(`${websiteId}.inbox.sqlite`);
      try {
        return acceptedRows({ get: () => graph, inbox: () => inbox }, websiteId).filter(
          (r) => r.item_id.startsWith('acked:') && !r.item_id.startsWith('acked:0:'),
        );
      } finally {
        graph.close();
        inbox.close();
      }
    };
    // Right after the kill, every acknowledged item is on disk, still in the inbox.
    expect(held().map((r) => [r.item_id, r.state])).toEqual([...accepted].sort().map((id) => [id, 'inbox']));

    daemon = await startTestDaemon({ dataDir: temp.dir, env });
    await poll(
      () => (held().every((r) => r.state === 'processed') ? true : undefined),
      'every acknowledged item processed after the restart',
      { timeoutMs: 30_000 },
    );
    expect(held()).toHaveLength(50);
    // Once the graph holds them on disk, the jobs delete them from the inbox.
    const inboxed = () => {
      const inbox = new Database(join(temp.dir, 'graphs', `${websiteId}.inbox.sqlite`), { readonly: true });
      try {
        return inbox.prepare(`SELECT COUNT(*) FROM inbox_items WHERE item_id LIKE 'acked:%'`).pluck().get();
      } finally {
        inbox.close();
      }
    };
    await poll(() => (inboxed() === 0 ? true : undefined), 'the inbox emptied', { timeoutMs: 30_000 });
  }, 90_000);
});
