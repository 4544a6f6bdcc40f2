import { EventEmitter } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobWorker } from '../../../src/platform/job-runtime/job-worker.js';
import { buildTestApp, injectSigned, seedWebsite, type SeededWebsite, type TestApp } from '../../helpers/app.js';
import { until } from '../../helpers/until.js';
import { pageItem } from '../../ingest/endpoints/support.js';
import { adminKey, api, createWorker, startReceiver, subscribe, type Receiver } from './support.js';

/**
 * A slow or dead receiver never delays ingestion or publishing (docs/webhooks.md "Delivery"):
 * the daemon's worker runs every lane at once, deliveries hold only delivery-lane slots.
 */
let t: TestApp;
let site: SeededWebsite;
let key: string;
let receiver: Receiver;
let worker: JobWorker;
const ITEMS = 5_000;
const BATCH = 500;
/** Emits 'outcome' at the end of each job the worker runs. */
const jobs = new EventEmitter();

beforeAll(async () => {
  t = await buildTestApp({ settings: { fetchAllowPrivateAddresses: true, jobLaneDeliveryConcurrency: 1 } });
  site = await seedWebsite(t.services, 'example.com');
  key = adminKey(t.services, site.organizationId);
  receiver = await startReceiver();
  // Every request held, never answered while the test runs: as slow a receiver as there is.
  receiver.answer(() => ({ status: 200, hold: true }));
  worker = createWorker(t.services, () => void jobs.emit('outcome'));
  worker.start();
}, 60_000);
afterAll(async () => {
  await receiver?.close(); // the held requests end at once, so the worker stops without waiting for them
  await worker?.stop();
  await t?.close();
});

describe('a receiver that holds every request', () => {
  it('5,000 items are ingested and published while its deliveries are still pending', async () => {
    await subscribe(t, key, site.websiteId, { url: receiver.url, events: ['ingest.completed', 'node.published'] });
    const db = t.services.controlDb;
    const ingestDepth = () => t.services.jobs.depth('content.ingest');
    const started = performance.now();
    for (let from = 0; from < ITEMS; from += BATCH) {
      const items = Array.from({ length: BATCH }, (_, i) =>
        pageItem(`p${from + i}`, `Page ${from + i} text about widgets.`),
      );
      const res = await injectSigned(t.app, '/v1/ingest/batch', {
        token: site.connectorToken,
        websiteId: site.websiteId,
        body: { website_id: site.websiteId, items },
      });
      expect(res.status, res.body).toBe(200);
      expect(res.json.data.accepted).toBe(BATCH);
    }
    await until(
      jobs,
      'outcome',
      () => {
        const depth = ingestDepth();
        return depth.queued === 0 && depth.running === 0;
      },
      'the content.ingest jobs',
      120_000,
    );
    const ingested = performance.now();
    expect(ingestDepth().dead).toBe(0);
    expect(
      receiver.received.length,
      'a delivery of ingest.completed was under way during ingestion',
    ).toBeGreaterThanOrEqual(1);

    const publish = await api(t, key, 'POST', `/v1/websites/${site.websiteId}/publish`, {});
    const published = performance.now();
    expect(publish.status, publish.body).toBe(200);
    expect(publish.json.data.files.length).toBeGreaterThan(0);

    const states = Object.fromEntries(
      (
        db.prepare('SELECT state, COUNT(*) AS n FROM webhook_deliveries GROUP BY state').all() as Array<{
          state: string;
          n: number;
        }>
      ).map((r) => [r.state, r.n]),
    );
    expect(states.succeeded ?? 0, 'no delivery has been answered yet').toBe(0);
    expect(states.pending, 'deliveries are still pending').toBeGreaterThanOrEqual(1);
    // Ingestion and the publish ran beside a delivery lane that was full the whole time.
    const firstAnswer = Math.min(...receiver.received.map((r) => r.answeredAt ?? Infinity));
    const firstRequest = Math.min(...receiver.received.map((r) => r.startedAt));
    expect(firstRequest).toBeLessThan(ingested);
    console.log(
      `slow receiver: ${ITEMS} items ingested in ${Math.round(ingested - started)} ms, published in ${Math.round(published - ingested)} ms; first delivery request at ${Math.round(firstRequest - started)} ms, first answer ${Number.isFinite(firstAnswer) ? `at ${Math.round(firstAnswer - started)} ms` : 'not yet'}; deliveries ${JSON.stringify(states)}`,
    );
  }, 180_000);
});
