import { AppError } from '../errors/app-error.js';
import type { Db } from '../storage/sqlite.js';

/** What ingestion needs to know about the target website. */
export interface IngestWebsite {
  id: string;
  organizationId: string;
  domain: string;
  defaultLanguage: string;
  plan: string;
  /** The domain and every verified alias, lowercased. */
  hosts: ReadonlySet<string>;
}

/** Reads the website of a verified request and checks X-Site-Domain against it. */
export function readIngestWebsite(db: Db, websiteId: string, siteDomainHeader: string | undefined): IngestWebsite {
  const row = db
    .prepare('SELECT w.id, w.organization_id, w.domain, w.default_language, o.plan FROM websites w JOIN organizations o ON o.id = w.organization_id WHERE w.id = ?')
    .get(websiteId) as { id: string; organization_id: string; domain: string; default_language: string; plan: string } | undefined;
  if (!row) throw new AppError('website.not_found', `No website ${websiteId}.`);
  const hosts = new Set([row.domain.toLowerCase()]);
  for (const alias of db.prepare('SELECT domain FROM website_aliases WHERE website_id = ? AND verified = 1').all(websiteId) as Array<{ domain: string }>) hosts.add(alias.domain.toLowerCase());
  if (siteDomainHeader !== undefined && !hosts.has(siteDomainHeader.trim().toLowerCase().replace(/\.$/, ''))) {
    throw new AppError('auth.scope_violation', `X-Site-Domain ${siteDomainHeader} is not the domain of website ${websiteId} (${row.domain}) nor a verified alias.`);
  }
  return { id: row.id, organizationId: row.organization_id, domain: row.domain, defaultLanguage: row.default_language, plan: row.plan, hosts };
}

/** Items per calendar month per plan (docs/contract.md#plans). */
export const PLAN_ITEM_LIMITS: Readonly<Record<string, number>> = { free: 1_000, pro: 50_000, business: 1_000_000 };

function period(nowMs: number): string {
  return new Date(nowMs).toISOString().slice(0, 7);
}

/** Adds accepted items to the organization's items_ingested counter of this month. */
export function countIngestedItems(db: Db, organizationId: string, accepted: number, nowMs: number): void {
  if (accepted <= 0) return;
  db.prepare(
    `INSERT INTO usage_counters (organization_id, metric, period, value) VALUES (?, 'items_ingested', ?, ?)
     ON CONFLICT (organization_id, metric, period) DO UPDATE SET value = value + excluded.value`,
  ).run(organizationId, period(nowMs), accepted);
}

/** True when the organization used up its monthly item quota. */
export function itemQuotaUsedUp(db: Db, website: IngestWebsite, nowMs: number): boolean {
  const row = db.prepare(`SELECT value FROM usage_counters WHERE organization_id = ? AND metric = 'items_ingested' AND period = ?`).get(website.organizationId, period(nowMs)) as { value: number } | undefined;
  return (row?.value ?? 0) >= (PLAN_ITEM_LIMITS[website.plan] ?? Infinity);
}
