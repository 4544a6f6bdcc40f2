import type { Db } from '../../platform/storage/sqlite.js';
import { newUlid } from '../../platform/ids/ulid.js';
import type { RowPage } from './member-rows.js';

/** Who did it: a user, an API key, the service itself (a job) or the operator at the shell (`nodectl admin`). */
export type AuditActor =
  { readonly kind: 'user' | 'api_key'; readonly id: string } | { readonly kind: 'system' | 'operator' };

/** Small, flat and free of secrets: ids, roles, emails, version ids; never a key, token or password. */
export type AuditDetails = Readonly<Record<string, string | number | boolean | null>>;

export interface AuditEntryInput {
  readonly organizationId: string;
  readonly actor: AuditActor;
  /** `area.verb_past`, e.g. member.added, api_key.revoked, node.published. */
  readonly action: string;
  /** What was acted on: a user id, key id, website id or address. */
  readonly target?: string | null;
  readonly requestId?: string | null;
  readonly details?: AuditDetails;
}

export interface AuditRecord {
  id: string;
  actor: { kind: AuditActor['kind']; id: string | null };
  action: string;
  target: string | null;
  requestId: string | null;
  details: AuditDetails;
  createdAt: string;
}

const MAX_DETAIL_KEYS = 16;
const MAX_DETAIL_TEXT = 300;

/** Keeps details small whatever a caller passes: at most 16 keys, each text cut at 300 characters. */
function boundedDetails(details: AuditDetails | undefined): string {
  const entries = Object.entries(details ?? {})
    .slice(0, MAX_DETAIL_KEYS)
    .map(([k, v]) => [k, typeof v === 'string' ? v.slice(0, MAX_DETAIL_TEXT) : v]);
  return JSON.stringify(Object.fromEntries(entries));
}

/** Appends one audit row (the table refuses updates and deletes while its organization exists). */
export function appendAudit(db: Db, entry: AuditEntryInput, now: number): string {
  const id = `aud_${newUlid(now)}`;
  db.prepare(
    // seq is the rowid: SQLite gives it the highest seq + 1, so an organization's rows keep their order.
    'INSERT INTO audit_log (id, organization_id, actor_kind, actor_id, action, target, request_id, details, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  ).run(
    id,
    entry.organizationId,
    entry.actor.kind,
    'id' in entry.actor ? entry.actor.id : null,
    entry.action,
    entry.target ?? null,
    entry.requestId ?? null,
    boundedDetails(entry.details),
    now,
  );
  return id;
}

interface AuditRow {
  seq: number;
  id: string;
  actor_kind: AuditActor['kind'];
  actor_id: string | null;
  action: string;
  target: string | null;
  request_id: string | null;
  details: string;
  created_at: number;
}

/** An organization's audit rows, newest first; `after` is the seq of the last row of the previous page. Reads limit + 1 rows. */
export function listAudit(db: Db, organizationId: string, page: RowPage): Array<AuditRecord & { seq: number }> {
  const before = page.after === undefined ? Number.MAX_SAFE_INTEGER : Number(page.after);
  const rows = db
    .prepare('SELECT * FROM audit_log WHERE organization_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?')
    .all(organizationId, Number.isSafeInteger(before) ? before : 0, page.limit + 1) as AuditRow[];
  return rows.map((row) => ({
    seq: row.seq,
    id: row.id,
    actor: { kind: row.actor_kind, id: row.actor_id },
    action: row.action,
    target: row.target,
    requestId: row.request_id,
    details: JSON.parse(row.details) as AuditDetails,
    createdAt: new Date(row.created_at).toISOString(),
  }));
}
