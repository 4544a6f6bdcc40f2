import type { AppServices } from '../../platform/app/services.js';
import { readQuota } from '../../control/plans/entitlements.js';
import type { HeartbeatResult } from '../../platform/contract/ingest-results.js';
import type { IngestWebsite } from './website-context.js';

/**
 * Records a heartbeat and tells the connector what to do next: pause when the plan's item quota
 * is used up (the same items_ingested counter ingest refuses items by, so the two agree),
 * backfill when a field mapping was added since its previous heartbeat, else continue.
 * (A suspended connector never gets here: it is rejected with auth.token_revoked.)
 */
export function recordHeartbeat(
  services: Pick<AppServices, 'controlDb' | 'now'>,
  website: IngestWebsite,
  connectorId: string,
  connectorState: string,
): HeartbeatResult {
  const nowMs = services.now();
  const at = new Date(nowMs).toISOString();
  const db = services.controlDb;
  const previous = db.prepare('SELECT last_heartbeat_at FROM connectors WHERE id = ?').get(connectorId) as
    { last_heartbeat_at: string | null } | undefined;
  db.prepare(
    'UPDATE connectors SET connector_state = ?, last_heartbeat_at = ?, stale = 0, updated_at = ? WHERE id = ?',
  ).run(connectorState, at, at, connectorId);
  let next: HeartbeatResult['next_action'] = 'continue';
  const items = readQuota(db, website.organizationId, 'items', nowMs);
  if (items.used >= items.limit) next = 'pause';
  else if (
    previous?.last_heartbeat_at &&
    db
      .prepare('SELECT 1 FROM field_mappings WHERE website_id = ? AND created_at > ? LIMIT 1')
      .get(website.id, previous.last_heartbeat_at)
  )
    next = 'backfill';
  return { next_action: next, server_time: at, server_time_unix: Math.floor(nowMs / 1000) };
}
