import { afterEach, describe, expect, it } from 'vitest';
import { acceptItems } from '../../../src/ingest/endpoints/accept.js';
import { deleteItems } from '../../../src/ingest/endpoints/delete-items.js';
import { readIngestWebsite } from '../../../src/ingest/endpoints/website-context.js';
import { readJournal } from '../../../src/ingest/handover/index.js';
import type { AppServices, GraphOwnershipPort } from '../../../src/platform/app/services.js';
import { computeItemChecksum } from '../../../src/platform/contract/index.js';
import { createWebsiteLeases } from '../../../src/platform/storage/website-leases.js';
import { buildTestApp, seedWebsite, type TestApp } from '../../helpers/app.js';
import { createTestDatabase } from '../../helpers/postgres.js';
import { acceptedRows } from '../../helpers/accepted-rows.js';

/**
 * What the writer of a website's graph acknowledges is journaled (accept.ts, delete-items.ts) in
 * the graph transaction that writes it, fenced by its lease token: with the lease, the journal
 * holds each accepted item and each delete; once another daemon holds the lease, the request is
 * refused (503, retryable) and the graph keeps what it had.
 */
let test: TestApp | undefined;
afterEach(async () => {
  await test?.close();
  test = undefined;
});

function page(n: number, text = 'first') {
  const item = {
    type: 'page',
    id: `p${n}`,
    url: `https://journal.example/p${n}`,
    title: `Page ${n}`,
    html: `<html><body><main><h1>Page ${n}</h1><p>The ${text} text of page ${n}, long enough to keep.</p></main></body></html>`,
  };
  return { ...item, checksum: computeItemChecksum(item) };
}

/** An app on PostgreSQL whose website this "daemon" writes under the lease `token` it was granted. */
async function writer() {
  test = await buildTestApp({ settings: { controlStore: await createTestDatabase() } });
  const site = await seedWebsite(test.services, 'journal.example');
  const leases = createWebsiteLeases(test.services.controlDb);
  const grant = leases.acquire(site.websiteId, 'this-daemon', test.services.now(), 60_000);
  if (!grant.granted) throw new Error('lease not granted');
  const ownership: GraphOwnershipPort = {
    tokenOf: (websiteId) => (leases.holder(websiteId, test!.services.now())?.owner === 'this-daemon' ? 1 : undefined),
    wrote: () => {},
  };
  const services: AppServices = { ...test.services, ownership };
  const website = readIngestWebsite(services.controlDb, site.websiteId, undefined);
  const connectorId = site.connectorToken.split('.')[0]!;
  const accept = (items: unknown[]) =>
    acceptItems({ services, website, connectorId, rawItems: items, partial: true, endpoint: 'batch' });
  // What the website holds of each item, in raw_items or still in the inbox.
  const rawItems = () =>
    acceptedRows(services.graphs, site.websiteId).map((row) => ({ id: row.item_id, state: row.state }));
  return { services, site, website, leases, accept, rawItems };
}

describe('the writer journals what it acknowledges', () => {
  it('accepted items and deletes are journaled in order; unchanged items add nothing', async () => {
    const { services, site, website, accept } = await writer();
    const first = await accept([page(1), page(2)]);
    expect(first.accepted).toBe(2);
    const again = await accept([page(1), page(3)]);
    expect(again.results.map((r) => r.status)).toEqual(['skipped', 'accepted']);
    const deleted = await deleteItems(services, website, ['p2', 'missing'], 'source_deleted');
    expect(deleted.tombstoned).toEqual(['p2']);
    const entries = [...readJournal(services.controlDb, site.websiteId, 0)].map((r) => r.entry);
    expect(entries.map((e) => (e.kind === 'items' ? e.items.map((i) => i.item.id) : e.ids))).toEqual([
      ['p1', 'p2'],
      ['p3'],
      ['p2'],
    ]);
    expect(entries[2]).toMatchObject({ kind: 'delete', reason: 'source_deleted' });
  });

  it('once another daemon holds the lease: 503 (retryable), and neither the graph nor the journal changes', async () => {
    const { services, site, website, leases, accept, rawItems } = await writer();
    await accept([page(1)]);
    const before = rawItems();
    // The lease lapsed and another daemon took the website.
    services.controlDb.prepare('UPDATE website_leases SET expires_at = 0 WHERE website_id = ?').run(site.websiteId);
    leases.acquire(site.websiteId, 'other-daemon', services.now(), 60_000);
    await expect(accept([page(1, 'edited'), page(2)])).rejects.toMatchObject({
      code: 'service.unavailable',
      retryable: true,
    });
    await expect(deleteItems(services, website, ['p1'], 'source_deleted')).rejects.toMatchObject({
      code: 'service.unavailable',
    });
    expect(rawItems()).toEqual(before);
    expect([...readJournal(services.controlDb, site.websiteId, 0)]).toHaveLength(1);
  });

  it('a tenure that lapsed under the writer, unnoticed: the fenced append refuses, and the inbox write rolls back', async () => {
    const { services, site, leases, accept, rawItems } = await writer();
    await accept([page(1)]);
    const before = rawItems();
    // This daemon still believes it holds token 1 (tokenOf is its own view); the store says token 2.
    services.controlDb.prepare('UPDATE website_leases SET expires_at = 0 WHERE website_id = ?').run(site.websiteId);
    leases.acquire(site.websiteId, 'this-daemon', services.now(), 60_000);
    await expect(accept([page(2)])).rejects.toMatchObject({ code: 'service.unavailable' });
    expect(rawItems()).toEqual(before);
  });
});
