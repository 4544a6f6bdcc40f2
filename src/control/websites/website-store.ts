import { AppError } from '../../platform/errors/app-error.js';
import type { ListQuery } from '../../platform/http/list-query.js';
import type { Db } from '../../platform/storage/sqlite.js';

/** A website as the API answers it, before its verification is added. */
export interface WebsiteRow {
  id: string;
  organizationId: string;
  domain: string;
  name: string;
  /** The name AI consumers see (ai.json brand); null: the name is used. */
  brand: string | null;
  defaultLanguage: string;
  createdAt: string;
}

const SELECT =
  'SELECT id, organization_id AS organizationId, domain, name, brand, default_language AS defaultLanguage, created_at AS createdAt FROM websites';

export function readWebsiteRow(db: Db, id: string): WebsiteRow | undefined {
  return db.prepare(`${SELECT} WHERE id = ?`).get(id) as WebsiteRow | undefined;
}

/** One page of an organization's websites by id (ids are ULIDs: creation order); reads limit + 1 rows. */
export function listWebsiteRows(db: Db, organizationId: string, query: ListQuery): WebsiteRow[] {
  return db
    .prepare(`${SELECT} WHERE organization_id = ? AND id > ? ORDER BY id LIMIT ?`)
    .all(organizationId, query.after ?? '', query.limit + 1) as WebsiteRow[];
}

/** 422 validation.failed when `domain` is already a website's domain or an alias of any website. */
export function assertDomainFree(db: Db, domain: string): void {
  const taken = db
    .prepare('SELECT 1 FROM websites WHERE domain = ? UNION ALL SELECT 1 FROM website_aliases WHERE domain = ? LIMIT 1')
    .get(domain, domain);
  if (taken)
    throw new AppError(
      'validation.failed',
      `The domain ${domain} already belongs to a website (as its domain or an alias).`,
      { details: { fields: [{ path: 'domain', message: 'already registered' }] } },
    );
}

export interface WebsiteChanges {
  name?: string;
  brand?: string | null;
  defaultLanguage?: string;
}

/** Applies the given fields; the domain never changes (docs/websites.md "Routes"). */
export function updateWebsiteRow(db: Db, id: string, changes: WebsiteChanges): WebsiteRow {
  const columns: Array<[string, unknown]> = [];
  if (changes.name !== undefined) columns.push(['name', changes.name]);
  if (changes.brand !== undefined) columns.push(['brand', changes.brand]);
  if (changes.defaultLanguage !== undefined) columns.push(['default_language', changes.defaultLanguage]);
  if (columns.length > 0)
    db.prepare(`UPDATE websites SET ${columns.map(([c]) => `${c} = ?`).join(', ')} WHERE id = ?`).run(
      ...columns.map(([, v]) => v),
      id,
    );
  return readWebsiteRow(db, id)!;
}
