import type { Db, PostgresStore } from '../../platform/storage/index.js';

/**
 * How an organization's rows leave each control.sqlite table (docs/organizations.md "Erase"), in
 * order: rows that name the organization's ids first, then the tables that reference websites,
 * websites, the organization's own tables, the organization, and last the audit log (its trigger
 * lets a row go only once its organization is gone). Parameters: :org, :websites and :connectors
 * (JSON arrays of ids), :needles (every id of the organization, JSON array) and :self (the job
 * running the erase, kept). A table that holds organization data must have its line here;
 * KEPT_TABLES names those that hold none. test/control/organizations/erase.app.test.ts fails when a table is
 * in neither list, so a new table's migration decides how an erase treats it.
 */
export const ERASE_STATEMENTS: ReadonlyArray<readonly [table: string, sql: string]> = [
  [
    'jobs',
    `DELETE FROM jobs WHERE id IS NOT :self AND EXISTS (SELECT 1 FROM json_each(:needles) n WHERE instr(jobs.payload, n.value) > 0 OR instr(COALESCE(jobs.dedupe_key, ''), n.value) > 0 OR instr(COALESCE(jobs.last_error, ''), n.value) > 0)`,
  ],
  [
    'mail_tokens',
    `DELETE FROM mail_tokens WHERE kind IN ('organization_transfer', 'invitation') AND EXISTS (SELECT 1 FROM json_each(:needles) n WHERE instr(COALESCE(mail_tokens.payload, ''), n.value) > 0)`,
  ],
  [
    'rate_limits',
    `DELETE FROM rate_limits WHERE EXISTS (SELECT 1 FROM json_each(:needles) n WHERE instr(rate_limits.bucket, n.value) > 0)`,
  ],
  ['nonces', `DELETE FROM nonces WHERE scope IN (SELECT value FROM json_each(:connectors))`],
  ['idempotency', `DELETE FROM idempotency WHERE connector_id IN (SELECT value FROM json_each(:connectors))`],
  ['publish_locks', `DELETE FROM publish_locks WHERE website_id IN (SELECT value FROM json_each(:websites))`],
  ['website_leases', `DELETE FROM website_leases WHERE website_id IN (SELECT value FROM json_each(:websites))`],
  ['ingest_journal', `DELETE FROM ingest_journal WHERE website_id IN (SELECT value FROM json_each(:websites))`],
  ['graph_snapshots', `DELETE FROM graph_snapshots WHERE website_id IN (SELECT value FROM json_each(:websites))`],
  ['analytics_events', `DELETE FROM analytics_events WHERE website_id IN (SELECT value FROM json_each(:websites))`],
  ['usage_counters', `DELETE FROM usage_counters WHERE organization_id = :org`],
  [
    'webhook_attempts',
    `DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT d.id FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id WHERE s.website_id IN (SELECT value FROM json_each(:websites)))`,
  ],
  [
    'webhook_deliveries',
    `DELETE FROM webhook_deliveries WHERE subscription_id IN (SELECT id FROM webhook_subscriptions WHERE website_id IN (SELECT value FROM json_each(:websites)))`,
  ],
  [
    'webhook_subscriptions',
    `DELETE FROM webhook_subscriptions WHERE website_id IN (SELECT value FROM json_each(:websites))`,
  ],
  [
    'events_outbox',
    `DELETE FROM events_outbox WHERE website_id IN (SELECT value FROM json_each(:websites)) OR EXISTS (SELECT 1 FROM json_each(:needles) n WHERE instr(events_outbox.data, n.value) > 0)`,
  ],
  ['field_mappings', `DELETE FROM field_mappings WHERE website_id IN (SELECT value FROM json_each(:websites))`],
  [
    'verification_events',
    `DELETE FROM verification_events WHERE website_id IN (SELECT value FROM json_each(:websites))`,
  ],
  [
    'domain_verifications',
    `DELETE FROM domain_verifications WHERE website_id IN (SELECT value FROM json_each(:websites))`,
  ],
  ['website_aliases', `DELETE FROM website_aliases WHERE website_id IN (SELECT value FROM json_each(:websites))`],
  ['verifications', `DELETE FROM verifications WHERE website_id IN (SELECT value FROM json_each(:websites))`],
  [
    'retired_connector_secrets',
    `DELETE FROM retired_connector_secrets WHERE connector_id IN (SELECT value FROM json_each(:connectors))`,
  ],
  ['connectors', `DELETE FROM connectors WHERE website_id IN (SELECT value FROM json_each(:websites))`],
  ['websites', `DELETE FROM websites WHERE organization_id = :org`],
  ['api_keys', `DELETE FROM api_keys WHERE organization_id = :org`],
  ['members', `DELETE FROM members WHERE organization_id = :org`],
  ['organization_invitations', `DELETE FROM organization_invitations WHERE organization_id = :org`],
  ['organization_transfers', `DELETE FROM organization_transfers WHERE organization_id = :org`],
  ['organization_erasures', `DELETE FROM organization_erasures WHERE organization_id = :org`],
  ['organizations', `DELETE FROM organizations WHERE id = :org`],
  ['audit_log', `DELETE FROM audit_log WHERE organization_id = :org`],
];

/** control.sqlite tables that never hold an organization's data: accounts (users stay), the waitlist, schedules. */
export const KEPT_TABLES: readonly string[] = [
  'users',
  'sessions',
  'refresh_tokens',
  'user_totp',
  'recovery_codes',
  'factor_lockouts',
  'user_identities',
  'waitlist',
  'schedules',
];

/** The ids an erase removes rows by: the organization, its websites and their connectors, its keys and transfers. */
export interface OrganizationIds {
  organizationId: string;
  websiteIds: string[];
  connectorIds: string[];
  needles: string[];
}

/** Every id of the organization as control.sqlite holds it now. */
export function readOrganizationIds(db: Db, organizationId: string): OrganizationIds {
  const websiteIds = db
    .prepare('SELECT id FROM websites WHERE organization_id = ? ORDER BY id')
    .pluck()
    .all(organizationId) as string[];
  const connectorIds = db
    .prepare(
      `SELECT c.id FROM connectors c JOIN websites w ON w.id = c.website_id WHERE w.organization_id = ? ORDER BY c.id`,
    )
    .pluck()
    .all(organizationId) as string[];
  const keyIds = db
    .prepare('SELECT id FROM api_keys WHERE organization_id = ?')
    .pluck()
    .all(organizationId) as string[];
  const transferIds = db
    .prepare('SELECT id FROM organization_transfers WHERE organization_id = ?')
    .pluck()
    .all(organizationId) as string[];
  return {
    organizationId,
    websiteIds,
    connectorIds,
    needles: [organizationId, ...websiteIds, ...connectorIds, ...keyIds, ...transferIds],
  };
}

/** Deletes every row of the organization, statement by statement, inside the caller's transaction. */
export function deleteOrganizationRows(db: Db, ids: OrganizationIds, selfJobId: string | null): void {
  const params = {
    org: ids.organizationId,
    websites: JSON.stringify(ids.websiteIds),
    connectors: JSON.stringify(ids.connectorIds),
    needles: JSON.stringify(ids.needles),
    self: selfJobId,
  };
  for (const [, sql] of ERASE_STATEMENTS) {
    const statement = db.prepare(sql);
    const used = Object.fromEntries(Object.entries(params).filter(([name]) => sql.includes(`:${name}`)));
    statement.run(used);
  }
}

/**
 * The organization's rows in the PostgreSQL control store (controlStore = postgres://...), as
 * ERASE_STATEMENTS removes them from control.sqlite: its connectors' nonces and idempotency
 * records, the rate-limit counters whose bucket names one of its ids, its usage counters and its
 * websites' leases. Run before the control.sqlite rows go (the ids are read from them); running it
 * again deletes nothing more.
 */
export async function deleteOrganizationSharedState(store: PostgresStore, ids: OrganizationIds): Promise<void> {
  await store.transaction(async (query) => {
    await query('DELETE FROM nonces WHERE scope = ANY($1::text[])', [ids.connectorIds]);
    await query('DELETE FROM idempotency WHERE connector_id = ANY($1::text[])', [ids.connectorIds]);
    await query(
      'DELETE FROM rate_limits WHERE EXISTS (SELECT 1 FROM unnest($1::text[]) AS n(needle) WHERE strpos(rate_limits.bucket, n.needle) > 0)',
      [ids.needles],
    );
    await query('DELETE FROM usage_counters WHERE organization_id = $1', [ids.organizationId]);
    await query('DELETE FROM website_leases WHERE website_id = ANY($1::text[])', [ids.websiteIds]);
  });
}
