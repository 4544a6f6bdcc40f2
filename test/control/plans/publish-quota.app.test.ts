import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAppError } from '../../../src/platform/errors/app-error.js';
import { createDeleteHarness, type DeleteHarness } from '../../output/publish/deletes-support.js';
import {
  buildTestApp,
  fakeClock,
  injectJson,
  seedWebsite,
  type SeededWebsite,
  type TestApp,
} from '../../helpers/app.js';
import { pageItem } from '../../ingest/endpoints/support.js';

/**
 * The publishes-per-day quota (docs/contract.md#plans) where publishes happen: runPublish (the CLI,
 * the route's worker, node.republish) and the route before it starts a worker. Every new version
 * counts in published_versions (monthly) and in the day's publishes.
 */
let h: DeleteHarness;
const counters = () =>
  h.services.controlDb
    .prepare(
      "SELECT metric, period, value FROM usage_counters WHERE organization_id = 'org_1' AND metric LIKE 'published_versions%' ORDER BY metric, period",
    )
    .all();
const refusal = async (run: Promise<unknown>) => {
  try {
    await run;
  } catch (error) {
    if (isAppError(error)) return { code: error.code, details: error.details };
    throw error;
  }
  throw new Error('the publish was not refused');
};

beforeAll(async () => {
  h = await createDeleteHarness();
  h.services.controlDb.prepare("UPDATE organizations SET plan = 'free' WHERE id = 'org_1'").run();
  await h.ingest([pageItem('p:1'), pageItem('p:2'), pageItem('p:3')]);
  await h.runJobs();
}, 60_000);
afterAll(async () => h?.close());

describe('publishes per UTC day (free plan: 10)', () => {
  it('counts a new version; a publish of unchanged content (already live) and a dry run do not count', async () => {
    const first = await h.publish();
    expect(first.alreadyLive).toBe(false);
    expect((await h.publish()).alreadyLive).toBe(true);
    const { runPublish } = await import('../../../src/output/publish/run-publish.js');
    const dry = await runPublish({
      settings: h.services.config.settings,
      controlDb: h.services.controlDb,
      target: h.target,
      source: { kind: 'website', websiteId: first.websiteId },
      dryRun: true,
      force: true,
      now: h.services.now,
    });
    expect(dry.dryRun).toBe(true);
    expect(counters()).toEqual([
      { metric: 'published_versions', period: '2026-03', value: 1 },
      { metric: 'published_versions.day', period: '2026-03-02', value: 1 },
    ]);
  });

  it('publishes the 10th version of the day and refuses the 11th with 403 entitlement.limit_reached (details.limit 10, details.used 10); the live version stays', async () => {
    for (let i = 2; i <= 10; i++) {
      h.advance(1000); // a forced publish in the same second builds the same version
      expect((await h.publish(true)).alreadyLive).toBe(false);
    }
    const live = await h.liveVersion();
    h.advance(1000);
    expect(await refusal(h.publish(true))).toEqual({
      code: 'entitlement.limit_reached',
      details: expect.objectContaining({ limit: 10, used: 10, quota: 'publishes_per_day' }),
    });
    expect(await h.liveVersion()).toBe(live);
    expect(counters()).toEqual([
      { metric: 'published_versions', period: '2026-03', value: 10 },
      { metric: 'published_versions.day', period: '2026-03-02', value: 10 },
    ]);
  });

  it('a republish that removes erased items is never refused (erased content must leave the live version) and still counts', async () => {
    const before = await h.liveVersion();
    await h.remove(['p:1'], 'gdpr_erasure');
    h.advance(61_000);
    await h.runJobs();
    expect(await h.liveVersion()).not.toBe(before);
    expect(counters()).toContainEqual({ metric: 'published_versions.day', period: '2026-03-02', value: 11 });
  });

  it('the next UTC day allows publishes again; the month keeps counting', async () => {
    h.advance(24 * 3600_000);
    expect((await h.publish(true)).alreadyLive).toBe(false);
    expect(counters()).toEqual([
      { metric: 'published_versions', period: '2026-03', value: 12 },
      { metric: 'published_versions.day', period: '2026-03-02', value: 11 },
      { metric: 'published_versions.day', period: '2026-03-03', value: 1 },
    ]);
  });
});

describe('the publish route refuses before it starts a worker', () => {
  let t: TestApp;
  let site: SeededWebsite;
  beforeAll(async () => {
    t = await buildTestApp({ clock: fakeClock() });
    site = await seedWebsite(t.services);
    t.services.controlDb
      .prepare(
        "INSERT INTO usage_counters (organization_id, metric, period, value) VALUES (?, 'published_versions.day', '2026-03-02', 100)",
      )
      .run(site.organizationId);
  }, 60_000);
  afterAll(async () => t?.close());

  it("POST /v1/websites/:id/publish is 403 entitlement.limit_reached once the pro plan's 100 publishes of the day are used", async () => {
    const res = await injectJson(t.app, {
      method: 'POST',
      url: `/v1/websites/${site.websiteId}/publish`,
      headers: { authorization: `Bearer ${site.apiKey}` },
    });
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({
      ok: false,
      error: { code: 'entitlement.limit_reached', retryable: false, details: { limit: 100, used: 100 } },
    });
  });
});
