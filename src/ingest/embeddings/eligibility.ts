import { capabilitiesOf, PLANS, type Plan } from '../../control/plans/index.js';
import type { Db } from '../../platform/storage/index.js';

/** A website whose chunks may be embedded: its organization and plan. */
export interface EmbeddingsWebsite {
  websiteId: string;
  organizationId: string;
}

/**
 * The website when its organization's plan carries both capabilities embeddings need
 * (docs/contract.md#plans: cap.advanced and cap.embeddings); undefined otherwise or when it is gone.
 */
export function embeddingsWebsite(controlDb: Db, websiteId: string): EmbeddingsWebsite | undefined {
  const row = controlDb
    .prepare(
      'SELECT w.organization_id AS organizationId, o.plan FROM websites w JOIN organizations o ON o.id = w.organization_id WHERE w.id = ?',
    )
    .get(websiteId) as { organizationId: string; plan: string } | undefined;
  if (!row || !(PLANS as readonly string[]).includes(row.plan)) return undefined;
  const caps = capabilitiesOf(row.plan as Plan);
  if (!caps.includes('cap.advanced') || !caps.includes('cap.embeddings')) return undefined;
  return { websiteId, organizationId: row.organizationId };
}
