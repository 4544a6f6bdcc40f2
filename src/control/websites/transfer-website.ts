import { AppError } from '../../platform/errors/app-error.js';
import { emitEvent } from '../events/index.js';
import { assertWithinLimit } from '../plans/entitlements.js';
import type { Db } from '../../platform/storage/sqlite.js';
import type { WebsiteRow } from './website-store.js';
import { readWebsiteRow } from './website-store.js';

/**
 * POST /v1/websites/:id/transfer (docs/contract.md#management-api): moves the website to
 * another organization at once. Its rows are re-parented, not copied: graph, verification,
 * connectors (their tokens keep working), mappings and webhooks stay with it. The target's
 * plan must have room (403 entitlement.limit_reached); neither organization may be under
 * erasure. `audit` writes the audit rows; a website.transferred event is written in the same
 * transaction. The caller has checked both roles.
 */
export function transferWebsite(
  db: Db,
  website: WebsiteRow,
  targetOrganizationId: string,
  now: number,
  audit: () => void,
): WebsiteRow {
  if (targetOrganizationId === website.organizationId) {
    throw new AppError('validation.failed', 'The website already belongs to this organization.', {
      details: { fields: [{ path: 'target_organization_id', message: "is the website's own organization" }] },
    });
  }
  return db
    .transaction(() => {
      const erasing = db
        .prepare('SELECT organization_id FROM organization_erasures WHERE organization_id IN (?, ?)')
        .pluck()
        .get(website.organizationId, targetOrganizationId);
      if (erasing)
        throw new AppError(
          'privacy.erasure_in_progress',
          `Organization ${String(erasing)} is being erased; a website cannot move into or out of it.`,
        );
      assertWithinLimit(db, targetOrganizationId, 'websites', { nowMs: now });
      db.prepare('UPDATE websites SET organization_id = ? WHERE id = ?').run(targetOrganizationId, website.id);
      emitEvent(
        db,
        {
          type: 'website.transferred',
          website_id: website.id,
          data: { from_organization_id: website.organizationId, to_organization_id: targetOrganizationId },
        },
        now,
      );
      audit();
      return readWebsiteRow(db, website.id)!;
    })
    .immediate();
}
