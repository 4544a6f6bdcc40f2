import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emitEvent } from '../../../src/control/events/emit.js';
import { connectorHeartbeatCheckJob } from '../../../src/control/connectors/heartbeat-check-job.js';
import type { JobWorker } from '../../../src/platform/job-runtime/job-worker.js';
import {
  buildTestApp,
  fakeClock,
  injectSigned,
  seedWebsite,
  type FakeClock,
  type SeededWebsite,
  type TestApp,
} from '../../helpers/app.js';
import { pageItem } from '../../ingest/endpoints/support.js';
import { adminKey, api, createWorker, startReceiver, subscribe, verifyWebhook, type Receiver } from './support.js';

let t: TestApp;
let clock: FakeClock;
let site: SeededWebsite;
let key: string;
let receiver: Receiver;
let worker: JobWorker;
let secret: string;
const MINUTE = 60_000;

beforeAll(async () => {
  clock = fakeClock();
  t = await buildTestApp({ clock, settings: { fetchAllowPrivateAddresses: true } });
  site = await seedWebsite(t.services, 'example.com');
  key = adminKey(t.services, site.organizationId);
  receiver = await startReceiver(clock.now);
  worker = createWorker(t.services);
  secret = (
    await subscribe(t, key, site.websiteId, {
      url: receiver.url,
      events: [
        'node.published',
        'node.taken_down',
        'ingest.completed',
        'connector.stale',
        'verification.changed',
        'website.transferred',
      ],
    })
  ).secret;
}, 60_000);
afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
  await t?.close();
});

/** Runs every due job (ingest, dispatch, deliveries) and returns the payloads delivered meanwhile, each verified with standardwebhooks. */
async function deliveredDuring(action: () => Promise<unknown>): Promise<Array<ReturnType<typeof verifyWebhook>>> {
  const before = receiver.received.length;
  await action();
  await worker.drain();
  return receiver.received.slice(before).map((request) => {
    const payload = verifyWebhook(secret, request);
    expect(request.headers['webhook-id']).toBe(payload.id);
    return payload;
  });
}

const heartbeat = () =>
  injectSigned(t.app, '/v1/ingest/heartbeat', {
    token: site.connectorToken,
    websiteId: site.websiteId,
    nowMs: clock.now(),
    body: { website_id: site.websiteId, connector_state: 'idle' },
  });

describe('the events of the catalogue, from the changes that cause them', () => {
  it('ingest.completed: one per content.ingest run, with counts and no item content', async () => {
    const payloads = await deliveredDuring(async () => {
      const res = await injectSigned(t.app, '/v1/ingest/batch', {
        token: site.connectorToken,
        websiteId: site.websiteId,
        nowMs: clock.now(),
        body: { website_id: site.websiteId, items: [pageItem('a', 'secret sauce recipe'), pageItem('b')] },
      });
      expect(res.status).toBe(200);
    });
    expect(payloads.map((p) => p.type)).toEqual(['ingest.completed']);
    const job = t.services.jobs.list({ kind: 'content.ingest' })[0]!;
    expect(payloads[0]).toMatchObject({
      website_id: site.websiteId,
      data: { job_id: job.id, processed: 2, failed: 0, skipped: 0, removed: 0, warned: expect.any(Number) },
    });
    expect(JSON.stringify(payloads[0])).not.toMatch(/secret sauce|example\.com\/a/);
  });

  it('node.published after a publish (version, label, previous, public URL), none for a publish of the live content; node.taken_down after a takedown, none for a second', async () => {
    let version = '';
    const published = await deliveredDuring(async () => {
      const res = await api(t, key, 'POST', `/v1/websites/${site.websiteId}/publish`, {});
      expect(res.status, res.body).toBe(200);
      version = res.json.data.versionUlid;
      // The publish worker thread's clock starts at the app clock and runs in real time: catch up with it.
      clock.advance(2_000);
    });
    expect(published).toEqual([
      expect.objectContaining({
        type: 'node.published',
        data: {
          node_version: version,
          node_version_label: expect.stringMatching(/^\d{4}-\d{2}-\d{2}\.1$/),
          previous_version: null,
          public_url: expect.stringContaining('/manifest.json'),
          rollback: false,
        },
      }),
    ]);
    clock.advance(2_000);
    const again = await deliveredDuring(async () =>
      expect((await api(t, key, 'POST', `/v1/websites/${site.websiteId}/publish`, {})).json.data.alreadyLive).toBe(
        true,
      ),
    );
    expect(again).toEqual([]);
    const down = await deliveredDuring(async () =>
      expect((await api(t, key, 'DELETE', `/v1/websites/${site.websiteId}/node`)).status).toBe(200),
    );
    expect(down).toEqual([
      expect.objectContaining({
        type: 'node.taken_down',
        data: { previous_version: version, removed_files: expect.any(Number) },
      }),
    ]);
    expect(down[0]!.data.removed_files).toBeGreaterThan(0);
    expect(await deliveredDuring(async () => api(t, key, 'DELETE', `/v1/websites/${site.websiteId}/node`))).toEqual([]);
  });

  it('connector.stale: once per silence of 15 minutes (not every check); the next heartbeat clears the flag and a new silence emits again', async () => {
    const check = () => t.services.jobs.enqueue(connectorHeartbeatCheckJob, {});
    const stale = () =>
      t.services.controlDb.prepare('SELECT stale FROM connectors WHERE id = ?').pluck().get(site.connectorId);
    expect((await heartbeat()).status).toBe(200);
    clock.advance(15 * MINUTE - 1);
    expect(await deliveredDuring(async () => check())).toEqual([]);
    expect(stale()).toBe(0);
    clock.advance(1);
    const first = await deliveredDuring(async () => check());
    expect(first).toEqual([
      expect.objectContaining({
        type: 'connector.stale',
        data: {
          connector_id: site.connectorId,
          name: 'test',
          last_heartbeat_at: new Date(clock.now() - 15 * MINUTE).toISOString(),
          stale_after_ms: 15 * MINUTE,
        },
      }),
    ]);
    expect(stale()).toBe(1);
    for (let i = 0; i < 3; i++) {
      clock.advance(5 * MINUTE);
      expect(await deliveredDuring(async () => check())).toEqual([]);
    }
    // Connector reads show the flag beside the last heartbeat and the state it reported.
    const read = await api(t, key, 'GET', `/v1/websites/${site.websiteId}/connectors`);
    expect(read.json.data.items).toEqual([
      expect.objectContaining({
        id: site.connectorId,
        stale: true,
        connectorState: 'idle',
        lastHeartbeatAt: new Date(clock.now() - 30 * MINUTE).toISOString(),
      }),
    ]);
    expect((await heartbeat()).status).toBe(200);
    expect(stale()).toBe(0);
    clock.advance(15 * MINUTE);
    expect((await deliveredDuring(async () => check())).map((p) => p.type)).toEqual(['connector.stale']);
  });

  it('verification.changed and website.transferred reach subscribers through emitEvent (their changes call it in their transaction)', async () => {
    const payloads = await deliveredDuring(async () => {
      t.services.controlDb.transaction(() => {
        emitEvent(
          t.services.controlDb,
          {
            type: 'verification.changed',
            website_id: site.websiteId,
            data: { domain: 'example.com', state: 'grace', previous_state: 'verified' },
          },
          clock.now(),
        );
        emitEvent(
          t.services.controlDb,
          {
            type: 'website.transferred',
            website_id: site.websiteId,
            data: { from_organization_id: site.organizationId, to_organization_id: 'org_next' },
          },
          clock.now(),
        );
      })();
    });
    // Two events of one millisecond: their order of delivery is not promised.
    expect(payloads.map((p) => [p.type, p.data]).sort((a, b) => String(a[0]).localeCompare(String(b[0])))).toEqual([
      ['verification.changed', { domain: 'example.com', state: 'grace', previous_state: 'verified' }],
      ['website.transferred', { from_organization_id: site.organizationId, to_organization_id: 'org_next' }],
    ]);
  });
});
