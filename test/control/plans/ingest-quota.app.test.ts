import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, fakeClock, seedWebsite, type SeededWebsite, type TestApp } from '../../helpers/app.js';
import { pageItem, signedInject } from '../../ingest/endpoints/support.js';
import { acceptedRows } from '../../helpers/accepted-rows.js';

/**
 * The monthly item quota at its boundary (docs/contract.md#plans), in process: ingest refuses the
 * item past it per item and heartbeat says pause, both from the one items_ingested counter.
 * Regression: a free organization ingested 1,500 items while heartbeat already said pause.
 */
const clock = fakeClock(Date.parse('2026-03-30T10:00:00Z'));
let t: TestApp;
let site: SeededWebsite;

const post = (path: string, body: Record<string, unknown>) =>
  signedInject(t.app, path, {
    token: site.connectorToken,
    websiteId: site.websiteId,
    nowMs: clock.now(),
    body: { website_id: site.websiteId, ...body },
  });
const items = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => pageItem(`${prefix}:${i}`));
const heartbeat = async () =>
  (await post('/v1/ingest/heartbeat', { connector_state: 'syncing' })).json.data.next_action;
/** Items the website holds, in raw_items or still in the inbox. */
const rawCount = () => acceptedRows(t.services.graphs, site.websiteId).length;

beforeAll(async () => {
  t = await buildTestApp({ clock });
  site = await seedWebsite(t.services);
  t.services.controlDb.prepare("UPDATE organizations SET plan = 'free' WHERE id = ?").run(site.organizationId);
}, 60_000);
afterAll(async () => t?.close());

describe('the item quota at ingest (free plan: 1,000 items a month)', () => {
  it('accepts 999 items and heartbeat says continue', async () => {
    expect((await post('/v1/ingest/batch', { items: items('a', 500) })).json.data).toMatchObject({
      accepted: 500,
      errored: 0,
    });
    expect((await post('/v1/ingest/batch', { items: items('b', 499) })).json.data).toMatchObject({
      accepted: 499,
      errored: 0,
    });
    expect(await heartbeat()).toBe('continue');
  });

  it('accepts the 1,000th item, refuses the 1,001st per item (403 entitlement.limit_reached, details.limit and details.used) and goes on with the batch', async () => {
    const res = await post('/v1/ingest/batch', {
      items: [pageItem('c:1000'), pageItem('c:1001'), pageItem('a:0'), pageItem('c:1002')],
    });
    expect(res.status).toBe(200);
    expect(res.json.ok).toBe(true);
    const data = res.json.data;
    expect(data).toMatchObject({ received: 4, accepted: 1, skipped: 1, errored: 2 });
    expect(data.results[0]).toMatchObject({ id: 'c:1000', status: 'accepted' });
    expect(data.results[1]).toMatchObject({
      id: 'c:1001',
      status: 'error',
      error: { code: 'entitlement.limit_reached', details: { limit: 1000, used: 1000 } },
    });
    expect(data.results[1].error.message).toContain('free plan allows 1,000 accepted items');
    // An unchanged item costs nothing and stays skipped past the quota.
    expect(data.results[2]).toMatchObject({ id: 'a:0', status: 'skipped', reason: 'unchanged_checksum' });
    expect(data.results[3]).toMatchObject({
      id: 'c:1002',
      status: 'error',
      error: { code: 'entitlement.limit_reached' },
    });
    expect(rawCount()).toBe(1000);
  });

  it('heartbeat says pause once the quota is used up (the same counter)', async () => {
    expect(await heartbeat()).toBe('pause');
  });

  it('refuses an update (a changed checksum is an accepted item) and /v1/ingest/item alike', async () => {
    const update = await post('/v1/ingest/batch', { items: [pageItem('a:1', 'new text')] });
    expect(update.json.data.results[0]).toMatchObject({
      status: 'error',
      error: { code: 'entitlement.limit_reached' },
    });
    const single = await post('/v1/ingest/item', { item: pageItem('d:1') });
    expect(single.status).toBe(200);
    expect(single.json.data).toMatchObject({
      id: 'd:1',
      status: 'error',
      error: { code: 'entitlement.limit_reached', details: { limit: 1000, used: 1000 } },
    });
  });

  it('with partial false, an item over the quota rejects the whole request (422 ingest.batch_rejected) and stores nothing', async () => {
    const res = await post('/v1/ingest/batch', { partial: false, items: [pageItem('a:2'), pageItem('e:1')] });
    expect(res.status).toBe(422);
    expect(res.json.error.code).toBe('ingest.batch_rejected');
    expect(res.json.error.details.items).toEqual([
      expect.objectContaining({
        index: 1,
        id: 'e:1',
        code: 'entitlement.limit_reached',
        details: expect.objectContaining({ limit: 1000, used: 1000 }),
      }),
    ]);
    expect(rawCount()).toBe(1000);
  });

  it('partial false within the quota stores every item but none past it: the rollback leaves the counter as it was', async () => {
    clock.set(Date.parse('2026-04-01T00:00:00Z'));
    t.services.controlDb
      .prepare(
        "INSERT INTO usage_counters (organization_id, metric, period, value) VALUES (?, 'items_ingested', '2026-04', 999)",
      )
      .run(site.organizationId);
    const refused = await post('/v1/ingest/batch', { partial: false, items: [pageItem('f:1'), pageItem('f:2')] });
    expect(refused.status).toBe(422);
    const accepted = await post('/v1/ingest/batch', { partial: false, items: [pageItem('f:1')] });
    expect(accepted.json.data).toMatchObject({ accepted: 1, errored: 0 });
    expect(await heartbeat()).toBe('pause');
  });

  it('a new month (UTC) starts from zero', async () => {
    clock.set(Date.parse('2026-05-01T00:00:00Z'));
    expect(await heartbeat()).toBe('continue');
    expect((await post('/v1/ingest/batch', { items: [pageItem('g:1')] })).json.data).toMatchObject({ accepted: 1 });
    const counters = t.services.controlDb
      .prepare(
        "SELECT period, value FROM usage_counters WHERE organization_id = ? AND metric = 'items_ingested' ORDER BY period",
      )
      .all(site.organizationId);
    expect(counters).toEqual([
      { period: '2026-03', value: 1000 },
      { period: '2026-04', value: 1000 },
      { period: '2026-05', value: 1 },
    ]);
  });
});
