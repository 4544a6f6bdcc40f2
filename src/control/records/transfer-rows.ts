import type { Db } from '../../platform/storage/sqlite.js';
import { newUlid } from '../../platform/ids/ulid.js';

export const TRANSFER_STATES = ['pending', 'accepted', 'completed', 'cancelled', 'expired'] as const;
export type TransferState = (typeof TRANSFER_STATES)[number];

/** An organization transfer (docs/organizations.md "Transfer"): pending until the recipient accepts, then executed by a job. */
export interface TransferRecord {
  id: string;
  organizationId: string;
  fromUserId: string | null;
  toEmail: string;
  state: TransferState;
  acceptedBy: string | null;
  jobId: string | null;
  createdAt: number;
  expiresAt: number;
  updatedAt: number;
}

const SELECT = `SELECT id, organization_id AS organizationId, from_user_id AS fromUserId, to_email AS toEmail, state, accepted_by AS acceptedBy,
  job_id AS jobId, created_at AS createdAt, expires_at AS expiresAt, updated_at AS updatedAt FROM organization_transfers`;

/** Marks the organization's pending transfers whose week ran out as expired (read paths call it first). */
export function expireTransfers(db: Db, organizationId: string, now: number): void {
  db.prepare(
    `UPDATE organization_transfers SET state = 'expired', updated_at = ? WHERE organization_id = ? AND state = 'pending' AND expires_at <= ?`,
  ).run(now, organizationId, now);
}

/** The transfer waiting for its recipient (pending, unexpired) or for its job (accepted), if any. */
export function openTransfer(db: Db, organizationId: string, now: number): TransferRecord | undefined {
  return db
    .prepare(`${SELECT} WHERE organization_id = ? AND (state = 'accepted' OR (state = 'pending' AND expires_at > ?))`)
    .get(organizationId, now) as TransferRecord | undefined;
}

export function getTransfer(db: Db, id: string): TransferRecord | undefined {
  return db.prepare(`${SELECT} WHERE id = ?`).get(id) as TransferRecord | undefined;
}

export function findTransferByTokenHash(db: Db, tokenHash: string): TransferRecord | undefined {
  return db.prepare(`${SELECT} WHERE token_hash = ?`).get(tokenHash) as TransferRecord | undefined;
}

export function insertTransfer(
  db: Db,
  input: { organizationId: string; fromUserId: string | null; toEmail: string; tokenHash: string; expiresAt: number },
  now: number,
): TransferRecord {
  const id = `xfr_${newUlid(now)}`;
  db.prepare(
    `INSERT INTO organization_transfers (id, organization_id, from_user_id, to_email, token_hash, state, created_at, expires_at, updated_at) VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, ?)`,
  ).run(
    id,
    input.organizationId,
    input.fromUserId,
    input.toEmail.toLowerCase(),
    input.tokenHash,
    now,
    input.expiresAt,
    now,
  );
  return getTransfer(db, id)!;
}

/** Moves a transfer from one state to the next; false when it was no longer in `from` (another request won). */
export function moveTransfer(
  db: Db,
  id: string,
  from: TransferState,
  to: TransferState,
  now: number,
  fields: { acceptedBy?: string; jobId?: string } = {},
): boolean {
  return (
    db
      .prepare(
        `UPDATE organization_transfers SET state = ?, updated_at = ?, accepted_by = COALESCE(?, accepted_by), job_id = COALESCE(?, job_id) WHERE id = ? AND state = ?`,
      )
      .run(to, now, fields.acceptedBy ?? null, fields.jobId ?? null, id, from).changes === 1
  );
}
