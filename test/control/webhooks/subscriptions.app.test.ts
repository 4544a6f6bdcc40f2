import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WebhookVerificationError } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/platform/config/config.js';
import { parseSecret } from '../../../src/control/webhooks/secret.js';
import { assertDeliverableUrl } from '../../../src/control/webhooks/schemas.js';
import {
  buildTestApp,
  fakeClock,
  seedWebsite,
  type FakeClock,
  type SeededWebsite,
  type TestApp,
} from '../../helpers/app.js';
import { adminKey, api, startReceiver, subscribe, verifyWebhook, type Receiver } from './support.js';

let t: TestApp;
let clock: FakeClock;
let site: SeededWebsite;
let other: SeededWebsite;
let key: string;
let receiver: Receiver;
const HOUR = 3_600_000;

beforeAll(async () => {
  clock = fakeClock();
  t = await buildTestApp({ clock, settings: { fetchAllowPrivateAddresses: true } });
  site = await seedWebsite(t.services, 'hooks.example');
  other = await seedWebsite(t.services, 'other.example');
  key = adminKey(t.services, site.organizationId);
  receiver = await startReceiver(clock.now);
}, 60_000);
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});
beforeEach(() => receiver.answer(() => ({ status: 204 })));

const base = () => `/v1/websites/${site.websiteId}/webhooks`;

describe('webhook subscriptions over HTTP', () => {
  it('create answers 201 with the whsec_ secret once; reads and lists never show it, and control.sqlite holds only its hash', async () => {
    const res = await api(t, key, 'POST', base(), {
      url: receiver.url,
      events: ['node.published', 'node.taken_down', 'node.published'],
      description: 'cache purge',
    });
    expect(res.status).toBe(201);
    const created = res.json.data;
    expect(created).toMatchObject({
      websiteId: site.websiteId,
      url: receiver.url,
      events: ['node.published', 'node.taken_down'],
      description: 'cache purge',
      enabled: true,
      disabledReason: null,
      secretVersion: 1,
      previousSecretExpiresAt: null,
    });
    expect(created.id).toMatch(/^whk_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const read = await api(t, key, 'GET', `${base()}/${created.id}`);
    expect(read.status).toBe(200);
    expect(read.json.data).toEqual(Object.fromEntries(Object.entries(created).filter(([k]) => k !== 'secret')));
    const list = await api(t, key, 'GET', base());
    expect(list.json.data.items.map((s: { id: string }) => s.id)).toContain(created.id);
    expect(JSON.stringify(list.json) + JSON.stringify(read.json)).not.toMatch(/whsec_|secret_?hash/i);
    const keyBytes = parseSecret(created.secret);
    const row = t.services.controlDb
      .prepare('SELECT secret_hash FROM webhook_subscriptions WHERE id = ?')
      .get(created.id) as { secret_hash: string };
    expect(row.secret_hash).toBe(createHash('sha256').update(keyBytes).digest('hex'));
    t.services.controlDb.pragma('wal_checkpoint(TRUNCATE)');
    const files = ['control.sqlite', 'control.sqlite-wal'].map((f) => join(t.dataDir, f)).filter(existsSync);
    for (const file of files) {
      const bytes = readFileSync(file);
      for (const needle of [created.secret, created.secret.slice(6), keyBytes.toString('hex')])
        expect(bytes.includes(Buffer.from(needle)), `${file} holds ${needle}`).toBe(false);
      expect(bytes.includes(keyBytes)).toBe(false);
    }
  });

  it('a bad body is 422 validation.failed naming each field; an unknown subscription is 404 webhook.not_found, also through another website', async () => {
    const bad = await api(t, key, 'POST', base(), {
      url: 'ftp://hooks.example/x',
      events: ['node.exploded'],
      extra: 1,
    });
    expect(bad.status).toBe(422);
    expect(bad.json.error.code).toBe('validation.failed');
    expect(bad.json.error.details.fields.map((f: { path: string }) => f.path).sort()).toEqual([
      '(root)',
      'events.0',
      'url',
    ]);
    expect(
      (await api(t, key, 'POST', base(), { url: 'https://user:pw@hooks.example/x', events: ['node.published'] }))
        .status,
    ).toBe(422);
    expect((await api(t, key, 'POST', base(), { url: 'https://hooks.example/x', events: [] })).status).toBe(422);
    expect((await api(t, key, 'PATCH', `${base()}/whk_missing`, {})).status).toBe(422);
    const missing = await api(t, key, 'GET', `${base()}/whk_missing`);
    expect([missing.status, missing.json.error.code]).toEqual([404, 'webhook.not_found']);
    const theirs = await subscribe(t, adminKey(t.services, other.organizationId), other.websiteId, {
      url: receiver.url,
      events: ['node.published'],
    });
    for (const [method, url] of [
      ['GET', `${base()}/${theirs.id}`],
      ['DELETE', `${base()}/${theirs.id}`],
      ['POST', `${base()}/${theirs.id}/rotate`],
    ] as const) {
      const res = await api(t, key, method, url, method === 'GET' ? undefined : {});
      expect([res.status, res.json.error.code], `${method} ${url}`).toEqual([404, 'webhook.not_found']);
    }
  });

  it('a URL whose host is a loopback, private or metadata address is refused at create unless fetchAllowPrivateAddresses; metadata always', () => {
    const closed = resolveConfig({ flags: {}, env: {} }).settings;
    const open = resolveConfig({ flags: { fetchAllowPrivateAddresses: true }, env: {} }).settings;
    for (const url of [
      'http://127.0.0.1:8080/h',
      'http://[::1]/h',
      'http://10.1.2.3/h',
      'http://169.254.169.254/latest',
    ])
      expect(() => assertDeliverableUrl(url, closed), url).toThrow(/not reachable|never go/);
    expect(() => assertDeliverableUrl('http://127.0.0.1:8080/h', open)).not.toThrow();
    expect(() => assertDeliverableUrl('http://169.254.169.254/latest', open)).toThrow(/metadata/);
    expect(() => assertDeliverableUrl('https://hooks.example.com/h', closed)).not.toThrow();
  });

  it('update changes url, events, description and enabled; disabling by hand records manual, enabling clears it', async () => {
    const { id } = await subscribe(t, key, site.websiteId, { url: receiver.url, events: ['node.published'] });
    const changed = await api(t, key, 'PATCH', `${base()}/${id}`, {
      url: `${receiver.url}?v=2`,
      events: ['connector.stale', 'ingest.completed'],
      description: 'ops',
      enabled: false,
    });
    expect(changed.status).toBe(200);
    expect(changed.json.data).toMatchObject({
      url: `${receiver.url}?v=2`,
      events: ['connector.stale', 'ingest.completed'],
      description: 'ops',
      enabled: false,
      disabledReason: 'manual',
    });
    const enabled = await api(t, key, 'PATCH', `${base()}/${id}`, { enabled: true });
    expect(enabled.json.data).toMatchObject({
      enabled: true,
      disabledReason: null,
      failingSince: null,
      url: `${receiver.url}?v=2`,
    });
  });

  it('rotate shows a new secret once; for 24 h both signatures are sent and the standardwebhooks package verifies with the old and the new secret; then only the new', async () => {
    const { id, secret: oldSecret } = await subscribe(t, key, site.websiteId, {
      url: receiver.url,
      events: ['node.published'],
    });
    const rotated = await api(t, key, 'POST', `${base()}/${id}/rotate`, {});
    expect(rotated.status).toBe(200);
    const newSecret: string = rotated.json.data.secret;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);
    expect(rotated.json.data).toMatchObject({
      secretVersion: 2,
      previousSecretExpiresAt: new Date(clock.now() + 24 * HOUR).toISOString(),
    });

    const ping = await api(t, key, 'POST', `${base()}/${id}/test`, {});
    expect(ping.json.data).toMatchObject({ delivered: true, status: 204, error: null });
    const during = receiver.received.at(-1)!;
    expect(during.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(verifyWebhook(oldSecret, during).id).toBe(ping.json.data.eventId);
    expect(verifyWebhook(newSecret, during).type).toBe('webhook.test');

    clock.advance(24 * HOUR);
    await api(t, key, 'POST', `${base()}/${id}/test`, {});
    const after = receiver.received.at(-1)!;
    expect(after.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(verifyWebhook(newSecret, after).data).toEqual({ subscription_id: id });
    expect(() => verifyWebhook(oldSecret, after)).toThrow(WebhookVerificationError);
    expect((await api(t, key, 'GET', `${base()}/${id}`)).json.data.previousSecretExpiresAt).toBeNull();
  });

  it('the test ping answers what the receiver said: its status, the first 1 KiB of its body and the failure', async () => {
    const { id, secret } = await subscribe(t, key, site.websiteId, { url: receiver.url, events: ['node.published'] });
    receiver.answer(() => ({ status: 500, body: 'x'.repeat(3000) }));
    const ping = await api(t, key, 'POST', `${base()}/${id}/test`, {});
    expect(ping.status).toBe(200);
    expect(ping.json.data).toMatchObject({ delivered: false, status: 500, error: 'http 500' });
    expect(ping.json.data.responseExcerpt).toHaveLength(1024);
    expect(verifyWebhook(secret, receiver.received.at(-1)!).website_id).toBe(site.websiteId);
  });

  it('without cap.webhooks (free plan) making, changing, rotating and pinging are 403 entitlement.capability_missing; reading and deleting still work', async () => {
    const { id } = await subscribe(t, key, site.websiteId, { url: receiver.url, events: ['node.published'] });
    t.services.controlDb.prepare(`UPDATE organizations SET plan = 'free' WHERE id = ?`).run(site.organizationId);
    try {
      for (const [method, url, body] of [
        ['POST', base(), { url: receiver.url, events: ['node.published'] }],
        ['PATCH', `${base()}/${id}`, { enabled: false }],
        ['POST', `${base()}/${id}/rotate`, {}],
        ['POST', `${base()}/${id}/test`, {}],
      ] as const) {
        const res = await api(t, key, method, url, body);
        expect([res.status, res.json.error.code], `${method} ${url}`).toEqual([403, 'entitlement.capability_missing']);
        expect(res.json.error.details).toMatchObject({ capability: 'cap.webhooks', plan: 'free' });
      }
      expect((await api(t, key, 'GET', base())).status).toBe(200);
      expect((await api(t, key, 'DELETE', `${base()}/${id}`)).status).toBe(204);
    } finally {
      t.services.controlDb.prepare(`UPDATE organizations SET plan = 'pro' WHERE id = ?`).run(site.organizationId);
    }
  });

  it('delete answers 204 and the subscription is gone; the audit log names each change by its actor', async () => {
    const { id } = await subscribe(t, key, site.websiteId, { url: receiver.url, events: ['node.published'] });
    expect((await api(t, key, 'DELETE', `${base()}/${id}`)).status).toBe(204);
    expect((await api(t, key, 'GET', `${base()}/${id}`)).status).toBe(404);
    const actions = t.services.controlDb
      .prepare(`SELECT action, actor_kind FROM audit_log WHERE target = ? ORDER BY seq`)
      .all(id);
    expect(actions).toEqual([
      { action: 'webhook.created', actor_kind: 'api_key' },
      { action: 'webhook.deleted', actor_kind: 'api_key' },
    ]);
  });
});
