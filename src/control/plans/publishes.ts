import { type Db, countPublishedVersion } from '../../platform/storage/index.js';
import { assertWithinLimit } from './entitlements.js';

function organizationOf(db: Db, websiteId: string): string | undefined {
  return (
    db.prepare('SELECT organization_id FROM websites WHERE id = ?').get(websiteId) as
      { organization_id: string } | undefined
  )?.organization_id;
}

/**
 * Throws 403 entitlement.limit_reached when the website's organization published its plan's
 * versions for this UTC day (docs/contract.md#plans). A website the control database does not
 * know (a fixture published on its own) has no organization and no quota.
 */
export function assertPublishAllowed(db: Db, websiteId: string, nowMs: number): void {
  const organizationId = organizationOf(db, websiteId);
  if (organizationId !== undefined) assertWithinLimit(db, organizationId, 'publishes_per_day', { nowMs });
}

/** Counts a new published version of the website (published_versions this month, publishes this day). */
export function countPublish(db: Db, websiteId: string, nowMs: number): void {
  const organizationId = organizationOf(db, websiteId);
  if (organizationId !== undefined) countPublishedVersion(db, organizationId, nowMs);
}
