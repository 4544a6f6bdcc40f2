import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, seedWebsite, type SeededWebsite, type TestApp } from '../../helpers/app.js';
import { pageItem, signedInject } from './support.js';

// The app in this process; the lock holder is another connection to its control database, as
// another process's would be (SQLite refuses it the same way).
let t: TestApp;
let site: SeededWebsite;

beforeAll(async () => {
  t = await buildTestApp();
  site = await seedWebsite(t.services);
}, 60_000);
afterAll(async () => {
  await t?.close();
});

describe('the replay guard fails closed', () => {
  it('answers 503 service.unavailable (retryable) and stores nothing while the nonce store cannot write; the retry succeeds', async () => {
    const { websiteId, connectorToken: token } = site;
    const send = () =>
      signedInject(t.app, '/v1/ingest/item', {
        token,
        websiteId,
        body: { website_id: websiteId, item: pageItem('locked:1') },
        idempotencyKey: 'fail-closed-1',
      });
    // Another connection holds the control database's write lock past the app's busy timeout.
    const holder = new Database(t.services.layout.controlDb);
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
