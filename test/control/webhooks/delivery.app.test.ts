import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { emitEvent } from '../../../src/control/events/emit.js';
import { webhooksDispatchJob } from '../../../src/control/webhooks/dispatch-job.js';
import type { JobWorker } from '../../../src/platform/job-runtime/job-worker.js';
import { readMasterKey } from '../../../src/platform/storage/data-dir.js';
import { attemptDelivery, RETRY_DELAYS_MS } from '../../../src/control/webhooks/deliver.js';
import { deliveryFetchOptions } from '../../../src/control/webhooks/send.js';
import {
  buildTestApp,
  fakeClock,
  seedWebsite,
  type FakeClock,
  type SeededWebsite,
  type TestApp,
} from '../../helpers/app.js';
import { adminKey, api, createWorker, startReceiver, subscribe, verifyWebhook, type Receiver } from './support.js';

let t: TestApp;
let clock: FakeClock;
let site: SeededWebsite;
let key: string;
let receiver: Receiver;
let worker: JobWorker;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

beforeAll(async () => {
  clock = fakeClock();
  t = await buildTestApp({ clock, settings: { fetchAllowPrivateAddresses: true } });
  site = await seedWebsite(t.services, 'deliveries.example');
  key = adminKey(t.services, site.organizationId);
  receiver = await startReceiver(clock.now);
  worker = createWorker(t.services);
}, 60_000);
afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
  await t?.close();
});
beforeEach(() => receiver.answer(() => ({ status: 204 })));

const db = () => t.services.controlDb;
const hooks = (id = '') => `/v1/websites/${site.websiteId}/webhooks${id ? `/${id}` : ''}`;
const runDue = () => worker.drain(['webhooks.dispatch', 'webhook.deliver']);

function emitStale(connector = 'conn_x'): string {
  return emitEvent(
    db(),
    {
      type: 'connector.stale',
      website_id: site.websiteId,
      data: {
        connector_id: connector,
        name: 'wp',
        last_heartbeat_at: new Date(clock.now() - 16 * MINUTE).toISOString(),
        stale_after_ms: 15 * MINUTE,
      },
    },
    clock.now(),
  );
}

async function deliveriesOf(subscriptionId: string): Promise<
  Array<{
    id: string;
    eventId: string;
    state: string;
    attempts: number;
    nextAttemptAt: string | null;
    lastStatus: number | null;
  }>
> {
  const res = await api(t, key, 'GET', `${hooks(subscriptionId)}/deliveries`);
  expect(res.status).toBe(200);
  return res.json.data.items;
}

describe('webhook delivery', () => {
  it('an event reaches each listening subscription once, signed (verified by standardwebhooks), with webhook-id = the event id and the contract payload', async () => {
    const a = await subscribe(t, key, site.websiteId, { url: `${receiver.url}?a`, events: ['connector.stale'] });
    const b = await subscribe(t, key, site.websiteId, {
      url: `${receiver.url}?b`,
      events: ['connector.stale', 'node.published'],
    });
    const deaf = await subscribe(t, key, site.websiteId, { url: `${receiver.url}?deaf`, events: ['node.published'] });
    const before = receiver.received.length;
    const eventId = emitStale('conn_a');
    await runDue();
    const got = receiver.received.slice(before);
    expect(got).toHaveLength(2);
    for (const [request, secret] of [
      [got.find((r) => r.headers['webhook-signature'] && verifies(b.secret, r)), b.secret],
      [got.find((r) => verifies(a.secret, r)), a.secret],
    ] as const) {
      expect(request, 'a request signed for each subscription').toBeDefined();
      const payload = verifyWebhook(secret, request!);
      expect(request!.headers['webhook-id']).toBe(eventId);
      expect(request!.headers['content-type']).toBe('application/json');
      expect(payload).toEqual({
        id: eventId,
        type: 'connector.stale',
        created_at: new Date(clock.now()).toISOString(),
        website_id: site.websiteId,
        data: {
          connector_id: 'conn_a',
          name: 'wp',
          last_heartbeat_at: expect.any(String),
          stale_after_ms: 15 * MINUTE,
        },
      });
    }
    expect((await deliveriesOf(a.id)).map((d) => [d.eventId, d.state, d.attempts, d.lastStatus])).toEqual([
      [eventId, 'succeeded', 1, 204],
    ]);
    expect(await deliveriesOf(deaf.id)).toEqual([]);
    for (const s of [a, b, deaf]) await api(t, key, 'DELETE', hooks(s.id));
  });

  it("emitEvent makes the deliveries in the change's transaction (no job when nobody listens); the dispatch sweep fans out an event inserted without them, never to a subscription made after it", async () => {
    const jobCount = () => db().prepare('SELECT COUNT(*) FROM jobs').pluck().get();
    const jobsBefore = jobCount();
    const old = emitStale('conn_old');
    expect(db().prepare('SELECT dispatched_at FROM events_outbox WHERE id = ?').pluck().get(old)).toBe(clock.now());
    expect(jobCount()).toBe(jobsBefore);
    // An event another writer inserted without its deliveries, before the subscription existed.
    db().prepare('UPDATE events_outbox SET dispatched_at = NULL WHERE id = ?').run(old);
    clock.advance(1);
    const s = await subscribe(t, key, site.websiteId, { url: receiver.url, events: ['connector.stale'] });
    const swept = db()
      .prepare(
        `INSERT INTO events_outbox (id, type, website_id, data, created_at) VALUES ('evt_inserted_directly', 'connector.stale', ?, ?, ?)`,
      )
      .run(
        site.websiteId,
        JSON.stringify({ connector_id: 'conn_swept', name: 'wp', last_heartbeat_at: 'x', stale_after_ms: 1 }),
        clock.now(),
      );
    expect(swept.changes).toBe(1);
    const before = receiver.received.length;
    const fresh = emitStale('conn_new');
    expect(db().prepare('SELECT COUNT(*) FROM webhook_deliveries WHERE event_id = ?').pluck().get(fresh)).toBe(1);
    t.services.jobs.enqueue(webhooksDispatchJob, {});
    await worker.drain();
    expect(
      receiver.received
        .slice(before)
        .map((r) => JSON.parse(r.body).data.connector_id)
        .sort(),
    ).toEqual(['conn_new', 'conn_swept']);
    expect(db().prepare('SELECT COUNT(*) FROM events_outbox WHERE dispatched_at IS NULL').pluck().get()).toBe(0);
    expect(db().prepare('SELECT COUNT(*) FROM webhook_deliveries WHERE event_id = ?').pluck().get(old)).toBe(0);
    await api(t, key, 'DELETE', hooks(s.id));
  });

  it('retries after 5 s, 5 min, 30 min, 2 h, 5 h and 10 h, then the delivery is failed; each attempt logs its status, duration and the first 1 KiB of the answer', async () => {
    const s = await subscribe(t, key, site.websiteId, { url: receiver.url, events: ['connector.stale'] });
    receiver.answer(() => ({ status: 503, body: 'busy '.repeat(1000) }));
    const before = receiver.received.length;
    emitStale();
    await runDue();
    const started = [clock.now()];
    for (const delay of RETRY_DELAYS_MS) {
      const [delivery] = await deliveriesOf(s.id);
      expect(delivery!.state).toBe('pending');
      expect(Date.parse(delivery!.nextAttemptAt!) - clock.now()).toBe(delay);
      clock.advance(delay - 1);
      await runDue();
      expect(receiver.received.length - before, 'no attempt before its time').toBe(started.length);
      clock.advance(1);
      await runDue();
      started.push(clock.now());
    }
    expect(RETRY_DELAYS_MS).toEqual([5_000, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR]);
    const [delivery] = await deliveriesOf(s.id);
    expect(delivery).toMatchObject({ state: 'failed', attempts: 7, nextAttemptAt: null, lastStatus: 503 });
    clock.advance(24 * HOUR);
    await runDue();
    expect(receiver.received.length - before).toBe(7);
    const attempts = await api(t, key, 'GET', `${hooks(s.id)}/deliveries/${delivery!.id}/attempts`);
    expect(attempts.json.data.items.map((a: { startedAt: string }) => Date.parse(a.startedAt))).toEqual(started);
    for (const attempt of attempts.json.data.items) {
      expect(attempt).toMatchObject({ trigger: 'schedule', status: 503, error: 'http 503' });
      expect(attempt.durationMs).toBeGreaterThanOrEqual(0);
      expect(attempt.responseExcerpt).toBe('busy '.repeat(1000).slice(0, 1024));
    }
    // Every attempt was signed; each verifies with the standardwebhooks package.
    for (const request of receiver.received.slice(before))
      expect(verifyWebhook(s.secret, request).type).toBe('connector.stale');
    await api(t, key, 'DELETE', hooks(s.id));
  });

  it('a 2xx after failures succeeds and ends the failing streak; a re-send by hand makes one manual attempt, 409 webhook.disabled while disabled', async () => {
    const s = await subscribe(t, key, site.websiteId, { url: receiver.url, events: ['connector.stale'] });
    receiver.answer(() => ({ status: 500 }));
    emitStale();
    await runDue();
    expect(db().prepare('SELECT failing_since FROM webhook_subscriptions WHERE id = ?').pluck().get(s.id)).toBe(
      clock.now(),
    );
    receiver.answer(() => ({ status: 202 }));
    clock.advance(5_000);
    await runDue();
    const [delivery] = await deliveriesOf(s.id);
    expect(delivery).toMatchObject({ state: 'succeeded', attempts: 2, lastStatus: 202 });
    expect(db().prepare('SELECT failing_since FROM webhook_subscriptions WHERE id = ?').pluck().get(s.id)).toBeNull();

    const before = receiver.received.length;
    const resend = await api(t, key, 'POST', `${hooks(s.id)}/deliveries/${delivery!.id}/resend`, {});
    expect(resend.status).toBe(202);
    expect(resend.json.data.jobId).toMatch(/^job_/);
    await runDue();
    expect(receiver.received.length - before).toBe(1);
    expect(receiver.received.at(-1)!.headers['webhook-id']).toBe(delivery!.eventId);
    const attempts = (await api(t, key, 'GET', `${hooks(s.id)}/deliveries/${delivery!.id}/attempts`)).json.data.items;
    expect(attempts.map((a: { trigger: string; status: number }) => [a.trigger, a.status])).toEqual([
      ['schedule', 500],
      ['schedule', 202],
      ['manual', 202],
    ]);

    await api(t, key, 'PATCH', hooks(s.id), { enabled: false });
    const refused = await api(t, key, 'POST', `${hooks(s.id)}/deliveries/${delivery!.id}/resend`, {});
    expect([refused.status, refused.json.error.code]).toEqual([409, 'webhook.disabled']);
    const unknown = await api(t, key, 'POST', `${hooks(s.id)}/deliveries/dlv_missing/resend`, {});
    expect([unknown.status, unknown.json.error.code]).toEqual([404, 'webhook.delivery_not_found']);
    await api(t, key, 'DELETE', hooks(s.id));
  });

  it('a delivery is read alone and the list filters by ?state; an unknown delivery is 404, a bad state 422; the no-body routes take no body at all', async () => {
    const s = await subscribe(t, key, site.websiteId, { url: receiver.url, events: ['connector.stale'] });
    const eventId = emitStale();
    await runDue();
    const [listed] = await deliveriesOf(s.id);
    const one = await api(t, key, 'GET', `${hooks(s.id)}/deliveries/${listed!.id}`);
    expect([one.status, one.json.data]).toEqual([200, listed]);
    expect(one.json.data).toMatchObject({
      subscriptionId: s.id,
      eventId,
      eventType: 'connector.stale',
      state: 'succeeded',
      attempts: 1,
      lastStatus: 204,
      lastError: null,
    });
    const ids = async (state: string) =>
      (await api(t, key, 'GET', `${hooks(s.id)}/deliveries?state=${state}`)).json.data.items.map(
        (d: { id: string }) => d.id,
      );
    expect({ succeeded: await ids('succeeded'), pending: await ids('pending') }).toEqual({
      succeeded: [listed!.id],
      pending: [],
    });
    const badState = await api(t, key, 'GET', `${hooks(s.id)}/deliveries?state=lost`);
    expect([badState.status, badState.json.error.details.fields.map((f: { path: string }) => f.path)]).toEqual([
      422,
      ['state'],
    ]);
    const unknown = await api(t, key, 'GET', `${hooks(s.id)}/deliveries/dlv_missing`);
    expect([unknown.status, unknown.json.error.code]).toEqual([404, 'webhook.delivery_not_found']);
    const unknownAttempts = await api(t, key, 'GET', `${hooks(s.id)}/deliveries/dlv_missing/attempts`);
    expect([unknownAttempts.status, unknownAttempts.json.error.code]).toEqual([404, 'webhook.delivery_not_found']);
    // rotate, test and resend: no body at all is as good as {}; a field is refused.
    expect((await api(t, key, 'POST', `${hooks(s.id)}/deliveries/${listed!.id}/resend`)).status).toBe(202);
    expect((await api(t, key, 'POST', `${hooks(s.id)}/test`)).json.data).toMatchObject({
      delivered: true,
      status: 204,
    });
    expect((await api(t, key, 'POST', `${hooks(s.id)}/rotate`)).json.data.secretVersion).toBe(2);
    expect((await api(t, key, 'POST', `${hooks(s.id)}/rotate`, { now: true })).status).toBe(422);
    await runDue();
    await api(t, key, 'DELETE', hooks(s.id));
  });

  it('a failed re-send leaves the delivery as it was: a pending one keeps its next scheduled attempt', async () => {
    const s = await subscribe(t, key, site.websiteId, { url: receiver.url, events: ['connector.stale'] });
    receiver.answer(() => ({ status: 500 }));
    emitStale();
    await runDue();
    const [pending] = await deliveriesOf(s.id);
    expect(pending).toMatchObject({ state: 'pending', attempts: 1 });
    expect((await api(t, key, 'POST', `${hooks(s.id)}/deliveries/${pending!.id}/resend`, {})).status).toBe(202);
    await runDue();
    const [after] = await deliveriesOf(s.id);
    expect(after).toMatchObject({
      state: 'pending',
      attempts: 2,
      nextAttemptAt: pending!.nextAttemptAt,
      lastStatus: 500,
    });
    clock.advance(5_000);
    await runDue();
    expect((await deliveriesOf(s.id))[0]).toMatchObject({ state: 'pending', attempts: 3 });
    const attempts = (await api(t, key, 'GET', `${hooks(s.id)}/deliveries/${pending!.id}/attempts`)).json.data.items;
    expect(attempts.map((a: { trigger: string }) => a.trigger)).toEqual(['schedule', 'manual', 'schedule']);
    await api(t, key, 'DELETE', hooks(s.id));
  });

  it('410 Gone disables the subscription at once; its other pending deliveries fail without another request', async () => {
    const s = await subscribe(t, key, site.websiteId, { url: receiver.url, events: ['connector.stale'] });
    receiver.answer(() => ({ status: 500 }));
    emitStale('first');
    await runDue();
    receiver.answer(() => ({ status: 410 }));
    emitStale('second');
    await runDue();
    const sub = (await api(t, key, 'GET', hooks(s.id))).json.data;
    expect(sub).toMatchObject({ enabled: false, disabledReason: 'gone' });
    const before = receiver.received.length;
    clock.advance(5_000);
    await runDue();
    expect(receiver.received.length).toBe(before);
    expect((await deliveriesOf(s.id)).map((d) => d.state).sort()).toEqual(['failed', 'failed']);
    await api(t, key, 'DELETE', hooks(s.id));
  });

  it('a subscription failing for 3 days without a success is disabled (failing)', async () => {
    const s = await subscribe(t, key, site.websiteId, { url: receiver.url, events: ['connector.stale'] });
    receiver.answer(() => ({ status: 500 }));
    emitStale('day0');
    await runDue();
    clock.advance(72 * HOUR - 1);
    emitStale('day3-minus');
    await runDue();
    expect((await api(t, key, 'GET', hooks(s.id))).json.data.enabled).toBe(true);
    clock.advance(1);
    emitStale('day3');
    await runDue();
    expect((await api(t, key, 'GET', hooks(s.id))).json.data).toMatchObject({
      enabled: false,
      disabledReason: 'failing',
      failingSince: expect.any(String),
    });
    await api(t, key, 'DELETE', hooks(s.id));
  });

  it('no redirect is followed: a 302 is a failed attempt and its target gets nothing', async () => {
    const target = await startReceiver(clock.now);
    try {
      const s = await subscribe(t, key, site.websiteId, { url: receiver.url, events: ['connector.stale'] });
      receiver.answer(() => ({ status: 302, headers: { location: target.url } }));
      emitStale();
      await runDue();
      expect((await deliveriesOf(s.id))[0]).toMatchObject({ state: 'pending', lastStatus: 302 });
      expect(target.received).toHaveLength(0);
      await api(t, key, 'DELETE', hooks(s.id));
    } finally {
      await target.close();
    }
  });

  it('a delivery job run again after a crash (its step already taken) sends nothing and logs nothing', async () => {
    const s = await subscribe(t, key, site.websiteId, { url: receiver.url, events: ['connector.stale'] });
    emitStale();
    await worker.drain(['webhooks.dispatch']);
    const [delivery] = await deliveriesOf(s.id);
    const deps = {
      controlDb: db(),
      jobs: t.services.jobs,
      masterKey: readMasterKey(t.services.layout),
      now: clock.now,
      fetchOptions: deliveryFetchOptions(t.services.config.settings),
    };
    const payload = { delivery_id: delivery!.id, website_id: site.websiteId, step: 0 };
    const before = receiver.received.length;
    expect(await attemptDelivery(deps, payload)).toBe('delivered');
    expect(await attemptDelivery(deps, payload)).toBe('skipped');
    await runDue(); // the queued job of step 0 finds it taken
    expect(receiver.received.length - before).toBe(1);
    expect(db().prepare('SELECT COUNT(*) FROM webhook_attempts WHERE delivery_id = ?').pluck().get(delivery!.id)).toBe(
      1,
    );
    await api(t, key, 'DELETE', hooks(s.id));
  });

  it('an event emitted in a transaction that rolls back leaves no event and no job', async () => {
    const s = await subscribe(t, key, site.websiteId, { url: receiver.url, events: ['connector.stale'] });
    const events = () => db().prepare('SELECT COUNT(*) FROM events_outbox').pluck().get();
    const jobs = () => db().prepare('SELECT COUNT(*) FROM jobs').pluck().get();
    const [e0, j0] = [events(), jobs()];
    expect(() =>
      db().transaction(() => {
        emitStale();
        throw new Error('the change failed');
      })(),
    ).toThrow('the change failed');
    expect([events(), jobs()]).toEqual([e0, j0]);
    expect(() =>
      emitEvent(
        db(),
        { type: 'node.taken_down', website_id: site.websiteId, data: { removed_files: 'many' } } as never,
        clock.now(),
      ),
    ).toThrow();
    // A fixture published by the CLI names a website control.sqlite does not hold: no event, no failure after the flip.
    expect(
      emitEvent(
        db(),
        { type: 'node.taken_down', website_id: 'web_not_here', data: { previous_version: null, removed_files: 1 } },
        clock.now(),
      ),
    ).toBeUndefined();
    expect([events(), jobs()]).toEqual([e0, j0]);
    await api(t, key, 'DELETE', hooks(s.id));
  });
});

function verifies(secret: string, request: Parameters<typeof verifyWebhook>[1]): boolean {
  try {
    verifyWebhook(secret, request);
    return true;
  } catch {
    return false;
  }
}
