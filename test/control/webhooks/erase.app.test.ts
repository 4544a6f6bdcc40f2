import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emitEvent } from '../../../src/control/events/emit.js';
import { deleteOrganizationRows, readOrganizationIds } from '../../../src/control/organizations/erase-rows.js';
import { buildTestApp, seedWebsite, type SeededWebsite, type TestApp } from '../../helpers/app.js';
import { adminKey, api, subscribe } from './support.js';

let t: TestApp;
let erased: SeededWebsite;
let kept: SeededWebsite;

beforeAll(async () => {
  t = await buildTestApp();
  erased = await seedWebsite(t.services, 'erased.example');
  kept = await seedWebsite(t.services, 'kept.example');
}, 60_000);
afterAll(async () => t?.close());

const TABLES = ['events_outbox', 'webhook_subscriptions', 'webhook_deliveries', 'webhook_attempts'];

describe('an organization erase and the webhook tables', () => {
  it("removes the organization's events, subscriptions, deliveries, attempts and delivery jobs, and events of another website naming it; the other organization keeps its own", async () => {
    const db = t.services.controlDb;
    for (const site of [erased, kept]) {
      await subscribe(t, adminKey(t.services, site.organizationId), site.websiteId, {
        url: 'https://hooks.example.org/h',
        events: ['ingest.completed', 'website.transferred'],
      });
      emitEvent(db, {
        type: 'ingest.completed',
        website_id: site.websiteId,
        data: { job_id: 'job_x', processed: 1, failed: 0, skipped: 0, removed: 0, warned: 0 },
      });
      const delivery = db
        .prepare(
          'SELECT d.id FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id WHERE s.website_id = ?',
        )
        .pluck()
        .get(site.websiteId) as string;
      db.prepare(
        `INSERT INTO webhook_attempts (id, delivery_id, trigger, started_at, duration_ms, status) VALUES (?, ?, 'schedule', 0, 5, 500)`,
      ).run(`att_${site.websiteId}`, delivery);
    }
    // The kept website came from the erased organization: its website.transferred event names it.
    emitEvent(db, {
      type: 'website.transferred',
      website_id: kept.websiteId,
      data: { from_organization_id: erased.organizationId, to_organization_id: kept.organizationId },
    });
    const before = db
      .prepare(
        `SELECT (SELECT COUNT(*) FROM events_outbox WHERE website_id = :w) AS events, (SELECT COUNT(*) FROM webhook_subscriptions WHERE website_id = :w) AS subscriptions,
       (SELECT COUNT(*) FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id WHERE s.website_id = :w) AS deliveries,
       (SELECT COUNT(*) FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id JOIN webhook_subscriptions s ON s.id = d.subscription_id WHERE s.website_id = :w) AS attempts`,
      )
      .get({ w: erased.websiteId });
    expect(before).toEqual({ events: 1, subscriptions: 1, deliveries: 1, attempts: 1 });
    expect(
      db
        .prepare(`SELECT COUNT(*) FROM jobs WHERE kind = 'webhook.deliver' AND instr(payload, ?) > 0`)
        .pluck()
        .get(erased.websiteId),
    ).toBe(1);

    db.transaction(() => deleteOrganizationRows(db, readOrganizationIds(db, erased.organizationId), null))();

    for (const table of TABLES) {
      const rows = db.prepare(`SELECT * FROM ${table}`).all();
      expect(JSON.stringify(rows), table).not.toContain(erased.websiteId);
      expect(JSON.stringify(rows), table).not.toContain(erased.organizationId);
      expect(rows.length, `${table} keeps the other organization's rows`).toBeGreaterThan(0);
    }
    expect(db.prepare(`SELECT COUNT(*) FROM jobs WHERE instr(payload, ?) > 0`).pluck().get(erased.websiteId)).toBe(0);
    expect(
      (await api(t, adminKey(t.services, kept.organizationId), 'GET', `/v1/websites/${kept.websiteId}/webhooks`)).json
        .data.items,
    ).toHaveLength(1);
  });
});
