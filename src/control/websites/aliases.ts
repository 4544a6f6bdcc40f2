import { AppError } from '../../platform/errors/app-error.js';
import type { Db } from '../../platform/storage/sqlite.js';
import { assertDomainFree } from './website-store.js';

/** Aliases one website may have (www., an old domain, a country domain...). */
export const MAX_ALIASES = 20;

/**
 * Adds an alias domain, unverified (pending, no challenge yet): items may use it as their url
 * host once it is verified on its own (docs/websites.md "Alias domains"). A domain belongs to
 * one website only, as its domain or as an alias.
 */
export function addAlias(db: Db, websiteId: string, domain: string): void {
  db.transaction(() => {
    assertDomainFree(db, domain);
    const count = db
      .prepare('SELECT COUNT(*) FROM website_aliases WHERE website_id = ?')
      .pluck()
      .get(websiteId) as number;
    if (count >= MAX_ALIASES)
      throw new AppError('validation.failed', `A website has at most ${MAX_ALIASES} alias domains; remove one first.`, {
        details: { fields: [{ path: 'domain', message: `the website has ${count} aliases` }] },
      });
    // The trigger of migration 0007 gives it its domain_verifications row.
    db.prepare('INSERT INTO website_aliases (website_id, domain, verified) VALUES (?, ?, 0)').run(websiteId, domain);
  }).immediate();
}

/** Removes an alias and its verification; 404 website.alias_not_found when it is not one. */
export function removeAlias(db: Db, websiteId: string, domain: string): void {
  const removed = db
    .prepare('DELETE FROM website_aliases WHERE website_id = ? AND domain = ?')
    .run(websiteId, domain).changes;
  if (removed === 0)
    throw new AppError(
      'website.alias_not_found',
      `${domain} is not an alias of this website (GET /v1/websites/${websiteId} lists its aliases).`,
    );
}
