import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../../helpers/daemon.js';
import { makeTempDir } from '../../helpers/paths.js';
import { seedDataDir } from '../../helpers/seed.js';
import { createTestConnector, pageItem, signedPost, type Connector } from './support.js';

let daemon: TestDaemon;
let temp: { dir: string; cleanup: () => void };
let websiteId: string;
let connector: Connector;

beforeAll(async () => {
  temp = makeTempDir('nodectl-fail-closed-');
  ({ websiteId } = await seedDataDir(temp.dir));
  connector = await createTestConnector(temp.dir, websiteId);
  daemon = await startTestDaemon({ dataDir: temp.dir });
}, 60_000);
afterAll(async () => {
  await daemon?.stop();
  temp?.cleanup();
});

describe('the replay guard fails closed', () => {
  it('answers 503 service.unavailable (retryable) and stores nothing while the nonce store cannot write; the retry succeeds', async () => {
    const send = () => signedPost(daemon.url, '/v1/ingest/item', { token: connector.token, websiteId, body: { website_id: websiteId, item: pageItem('locked:1') }, idempotencyKey: 'fail-closed-1' });
    // Another process holds the control database's write lock past the daemon's busy timeout.
    const holder = new Database(join(temp.dir, 'control.sqlite'));
    holder.exec('BEGIN IMMEDIATE');
    let refused;
    try {
      refused = await send();
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    expect(refused.status).toBe(503);
    expect(refused.json.error).toMatchObject({ code: 'service.unavailable', retryable: true });
    expect(refused.json.error.message).toMatch(/retry/i);
    // Accepted (not skipped as unchanged): the refused request stored nothing.
    const retried = await send();
    expect(retried.status, JSON.stringify(retried.json)).toBe(200);
    expect(retried.json.data.status).toBe('accepted');
  }, 30_000);
});
