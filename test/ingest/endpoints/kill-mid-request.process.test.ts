import Database from 'better-sqlite3';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../../helpers/daemon.js';
import { makeTempDir } from '../../helpers/paths.js';
import { seedDataDir } from '../../helpers/seed.js';
import { poll } from '../../helpers/until.js';
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
});
