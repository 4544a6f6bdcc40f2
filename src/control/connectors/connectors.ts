import { ulid } from 'ulid';
import { z } from 'zod';
import { AppError, fieldProblemsFromZod } from '../../platform/errors/index.js';
import { SourceTypeSchema, type SourceType } from '../../platform/contract/index.js';
import type { Db } from '../../platform/storage/index.js';
import { hashConnectorSecret, newConnectorSecret, RETIRED_SECRETS_KEPT, type StoredSecret } from './secret-hash.js';

export const CONNECTOR_STATUSES = ['active', 'suspended', 'revoked'] as const;
export type ConnectorStatus = (typeof CONNECTOR_STATUSES)[number];

/** A connector as every reader sees it: never the secret, never its hash. */
export interface ConnectorRecord {
  id: string;
  name: string;
  connectorType: string;
  scope: { websiteId: string; sourceTypes: SourceType[] };
  tokenVersion: number;
  status: ConnectorStatus;
  connectorState: string | null;
  lastHeartbeatAt: string | null;
  stale: boolean;
  createdAt: string;
  updatedAt: string;
}

/** The create and rotate answer: the record plus the token, shown this once. */
export interface ConnectorWithToken extends ConnectorRecord {
  token: string;
}

export const CreateConnectorSchema = z.strictObject({
  websiteId: z.string().min(1),
  name: z.string().trim().min(1).max(200).optional(),
  connectorType: z
    .string()
    .trim()
    .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/i, 'must be a short identifier such as "wordpress" or "files"'),
  sourceTypes: z.array(SourceTypeSchema).min(1, 'must list at least one source type'),
});

interface ConnectorRow {
  id: string;
  website_id: string;
  name: string;
  connector_type: string;
  source_types: string;
  secret_hash: string;
  token_version: number;
  status: ConnectorStatus;
  connector_state: string | null;
  last_heartbeat_at: string | null;
  stale: number;
  created_at: string;
  updated_at: string;
}

/** The row the verifier needs, hash included; never leaves the server. */
export interface ConnectorCredential {
  id: string;
  websiteId: string;
  sourceTypes: ReadonlySet<string>;
  secretHash: string;
  tokenVersion: number;
  status: ConnectorStatus;
  /** The newest rotated-away secrets (at most RETIRED_SECRETS_KEPT), newest first. */
  retiredSecrets: StoredSecret[];
}

function toRecord(row: ConnectorRow): ConnectorRecord {
  return {
    id: row.id,
    name: row.name,
    connectorType: row.connector_type,
    scope: { websiteId: row.website_id, sourceTypes: JSON.parse(row.source_types) as SourceType[] },
    tokenVersion: row.token_version,
    status: row.status,
    connectorState: row.connector_state,
    lastHeartbeatAt: row.last_heartbeat_at,
    stale: row.stale === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Creates a connector bound to one website; the token `<id>.<secret>` is returned only here. */
export function createConnector(
  db: Db,
  masterKey: Uint8Array,
  input: z.input<typeof CreateConnectorSchema>,
  now = Date.now(),
): ConnectorWithToken {
  const parsed = CreateConnectorSchema.safeParse(input);
  if (!parsed.success)
    throw new AppError('validation.failed', 'The connector is not valid; see details.fields.', {
      details: { fields: fieldProblemsFromZod(parsed.error.issues) },
    });
  const { websiteId, connectorType } = parsed.data;
  const sourceTypes = [...new Set(parsed.data.sourceTypes)].sort();
  const id = `conn_${ulid(now)}`;
  const secret = newConnectorSecret();
  const at = new Date(now).toISOString();
  db.transaction(() => {
    if (!db.prepare('SELECT 1 FROM websites WHERE id = ?').get(websiteId))
      throw new AppError('website.not_found', `No website ${websiteId}: see \`nodectl admin website list\`.`);
    db.prepare(
      `INSERT INTO connectors (id, website_id, name, connector_type, source_types, secret_hash, token_version, status, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, 1, 'active', ?, ?)`,
    ).run(
      id,
      websiteId,
      parsed.data.name ?? connectorType,
      connectorType,
      JSON.stringify(sourceTypes),
      hashConnectorSecret(masterKey, id, 1, secret),
      at,
      at,
    );
  }).immediate();
  return { ...getConnector(db, id)!, token: `${id}.${secret}` };
}

export function getConnector(db: Db, id: string): ConnectorRecord | undefined {
  const row = db.prepare('SELECT * FROM connectors WHERE id = ?').get(id) as ConnectorRow | undefined;
  return row ? toRecord(row) : undefined;
}

/** Connectors, optionally of one website, oldest first; revoked ones included (status says so). */
export function listConnectors(db: Db, websiteId?: string): ConnectorRecord[] {
  const rows = (
    websiteId
      ? db.prepare('SELECT * FROM connectors WHERE website_id = ? ORDER BY created_at, id').all(websiteId)
      : db.prepare('SELECT * FROM connectors ORDER BY created_at, id').all()
  ) as ConnectorRow[];
  return rows.map(toRecord);
}

function requireConnector(db: Db, id: string): ConnectorRow {
  const row = db.prepare('SELECT * FROM connectors WHERE id = ?').get(id) as ConnectorRow | undefined;
  if (!row) throw new AppError('connector.not_found', `No connector ${id}: see \`nodectl admin connector list\`.`);
  return row;
}

/**
 * Issues a new secret and bumps tokenVersion: the previous token fails with auth.token_revoked.
 * The old hash is kept as retired (the newest RETIRED_SECRETS_KEPT only) so the verifier can tell
 * a stale token from a wrong secret.
 */
export function rotateConnector(db: Db, masterKey: Uint8Array, id: string, now = Date.now()): ConnectorWithToken {
  const secret = newConnectorSecret();
  db.transaction(() => {
    const row = requireConnector(db, id);
    if (row.status === 'revoked')
      throw new AppError('validation.failed', `Connector ${id} is deleted; create a new one.`, {
        details: { fields: [{ path: 'id', message: 'connector is revoked' }] },
      });
    const version = row.token_version + 1;
    db.prepare(
      `INSERT INTO retired_connector_secrets (connector_id, token_version, secret_hash, retired_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (connector_id, token_version) DO UPDATE SET secret_hash = excluded.secret_hash, retired_at = excluded.retired_at`,
    ).run(id, row.token_version, row.secret_hash, now);
    db.prepare(
      `DELETE FROM retired_connector_secrets WHERE connector_id = ? AND token_version NOT IN
       (SELECT token_version FROM retired_connector_secrets WHERE connector_id = ? ORDER BY token_version DESC LIMIT ?)`,
    ).run(id, id, RETIRED_SECRETS_KEPT);
    db.prepare('UPDATE connectors SET secret_hash = ?, token_version = ?, updated_at = ? WHERE id = ?').run(
      hashConnectorSecret(masterKey, id, version, secret),
      version,
      new Date(now).toISOString(),
      id,
    );
  }).immediate();
  return { ...getConnector(db, id)!, token: `${id}.${secret}` };
}

function setStatus(
  db: Db,
  id: string,
  from: readonly ConnectorStatus[],
  to: ConnectorStatus,
  now: number,
  alsoInTransaction?: () => void,
): ConnectorRecord {
  return db
    .transaction(() => {
      const row = requireConnector(db, id);
      alsoInTransaction?.();
      if (row.status !== to) {
        if (!from.includes(row.status))
          throw new AppError('validation.failed', `Connector ${id} is ${row.status}; it cannot become ${to}.`, {
            details: { fields: [{ path: 'status', message: `is ${row.status}` }] },
          });
        db.prepare('UPDATE connectors SET status = ?, updated_at = ? WHERE id = ?').run(
          to,
          new Date(now).toISOString(),
          id,
        );
      }
      return getConnector(db, id)!;
    })
    .immediate();
}

/** Suspends a connector: its requests fail with auth.token_revoked until it is resumed. */
export function suspendConnector(db: Db, id: string, now = Date.now()): ConnectorRecord {
  return setStatus(db, id, ['active'], 'suspended', now);
}

export function resumeConnector(db: Db, id: string, now = Date.now()): ConnectorRecord {
  return setStatus(db, id, ['suspended'], 'active', now);
}

/**
 * Deletes (revokes) a connector for good; the row stays for audit, the token never works again.
 * Its retired secret hashes go: a revoked connector answers auth.token_revoked whatever it is sent.
 */
export function deleteConnector(db: Db, id: string, now = Date.now()): ConnectorRecord {
  return setStatus(db, id, ['active', 'suspended'], 'revoked', now, () => {
    db.prepare('DELETE FROM retired_connector_secrets WHERE connector_id = ?').run(id);
  });
}

/** The verifier's view of a connector (hashes included), or undefined; both reads run for an unknown id too. */
export function readConnectorCredential(db: Db, id: string): ConnectorCredential | undefined {
  const row = db
    .prepare('SELECT id, website_id, source_types, secret_hash, token_version, status FROM connectors WHERE id = ?')
    .get(id) as ConnectorRow | undefined;
  const retired = db
    .prepare(
      `SELECT token_version AS tokenVersion, secret_hash AS secretHash FROM retired_connector_secrets
       WHERE connector_id = ? ORDER BY token_version DESC LIMIT ?`,
    )
    .all(id, RETIRED_SECRETS_KEPT) as StoredSecret[];
  if (!row) return undefined;
  return {
    id: row.id,
    websiteId: row.website_id,
    sourceTypes: new Set(JSON.parse(row.source_types) as string[]),
    secretHash: row.secret_hash,
    tokenVersion: row.token_version,
    status: row.status,
    retiredSecrets: retired,
  };
}
