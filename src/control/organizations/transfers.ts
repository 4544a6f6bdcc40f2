import type { AppServices } from '../../platform/app/services.js';
import { consumeMailToken, issueMailToken } from '../accounts/mail-tokens.js';
import { hashOpaqueToken, looksLikeOpaqueToken } from '../accounts/opaque-tokens.js';
import { AppError } from '../../platform/errors/app-error.js';
import type { Job } from '../../platform/jobs/queue.js';
import { appendAudit, type AuditActor } from '../records/audit.js';
import { memberRole, ensureMemberRole } from '../records/member-rows.js';
import type { OrganizationRecord } from '../records/record-types.js';
import {
  expireTransfers,
  findTransferByTokenHash,
  getTransfer,
  insertTransfer,
  moveTransfer,
  openTransfer,
  type TransferRecord,
} from '../records/transfer-rows.js';
import { getUser } from '../records/users.js';
import type { OrganizationMail } from './organization-mail.js';
import { orgTransferExecuteKind } from './job-kinds.js';

/** A pending transfer works for 7 days (docs/contract.md#management-api). */
export const TRANSFER_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;

type Services = Pick<AppServices, 'controlDb' | 'jobs' | 'now'>;

/** A transfer as the routes answer it. */
export function presentTransfer(transfer: TransferRecord) {
  return {
    id: transfer.id,
    organizationId: transfer.organizationId,
    email: transfer.toEmail,
    state: transfer.state,
    jobId: transfer.jobId,
    createdAt: new Date(transfer.createdAt).toISOString(),
    expiresAt: new Date(transfer.expiresAt).toISOString(),
  };
}

/**
 * POST /v1/organizations/:id/transfer {email}: records a pending transfer to `email` and mails
 * the recipient a single-use token (7 days). One transfer at a time (409
 * organization.transfer_pending); none during an erasure.
 */
export async function startTransfer(
  services: Services,
  mail: OrganizationMail,
  input: { organization: OrganizationRecord; email: string; callerId: string; requestId: string },
): Promise<{ transfer: TransferRecord; mailSent: boolean }> {
  const db = services.controlDb;
  const now = services.now();
  const { organization } = input;
  const caller = getUser(db, input.callerId);
  const { transfer, token } = db
    .transaction(() => {
      if (db.prepare('SELECT 1 FROM organization_erasures WHERE organization_id = ?').get(organization.id)) {
        throw new AppError(
          'privacy.erasure_in_progress',
          'This organization is being erased; it cannot be transferred.',
        );
      }
      expireTransfers(db, organization.id, now);
      if (openTransfer(db, organization.id, now))
        throw new AppError(
          'organization.transfer_pending',
          'A transfer of this organization already waits for its recipient: cancel it (POST /v1/organizations/:id/transfer/cancel) to send another.',
        );
      if (caller && caller.email === input.email)
        throw new AppError(
          'validation.failed',
          'You cannot transfer the organization to yourself: name the address of the new owner.',
          { details: { fields: [{ path: 'email', message: 'is your own address' }] } },
        );
      const expiresAt = now + TRANSFER_LIFETIME_MS;
      const token = issueMailToken(
        db,
        'organization_transfer',
        { email: input.email, payload: { organization_id: organization.id }, ttlMs: TRANSFER_LIFETIME_MS },
        now,
      );
      const transfer = insertTransfer(
        db,
        {
          organizationId: organization.id,
          fromUserId: input.callerId,
          toEmail: input.email,
          tokenHash: hashOpaqueToken(token),
          expiresAt,
        },
        now,
      );
      appendAudit(
        db,
        {
          organizationId: organization.id,
          actor: { kind: 'user', id: input.callerId },
          action: 'transfer.requested',
          target: input.email,
          requestId: input.requestId,
          details: { transfer_id: transfer.id },
        },
        now,
      );
      return { transfer, token };
    })
    .immediate();
  const mailSent = await mail.send({
    kind: 'organization_transfer',
    to: input.email,
    token,
    organizationName: organization.name,
    fromEmail: caller?.email ?? 'An owner of the organization',
  });
  return { transfer, mailSent };
}

/** POST /v1/organizations/:id/transfer/cancel: the pending transfer ends and its mailed token stops working. */
export function cancelTransfer(
  services: Services,
  input: { organizationId: string; actor: AuditActor; requestId: string },
): TransferRecord {
  const db = services.controlDb;
  const now = services.now();
  return db
    .transaction(() => {
      expireTransfers(db, input.organizationId, now);
      const open = openTransfer(db, input.organizationId, now);
      if (!open || open.state !== 'pending') {
        throw new AppError(
          'organization.transfer_not_found',
          open
            ? 'The transfer was already accepted and is being carried out; it cannot be cancelled.'
            : 'No transfer of this organization waits for acceptance.',
        );
      }
      moveTransfer(db, open.id, 'pending', 'cancelled', now);
      db.prepare(
        'UPDATE mail_tokens SET used_at = ? WHERE token_hash = (SELECT token_hash FROM organization_transfers WHERE id = ?) AND used_at IS NULL',
      ).run(now, open.id);
      appendAudit(
        db,
        {
          organizationId: input.organizationId,
          actor: input.actor,
          action: 'transfer.cancelled',
          target: open.toEmail,
          requestId: input.requestId,
          details: { transfer_id: open.id },
        },
        now,
      );
      return getTransfer(db, open.id)!;
    })
    .immediate();
}

/**
 * POST /v1/organizations/transfers/:token/accept: the signed-in recipient (the account's address
 * must be the one the transfer was sent to) uses the token; org.transfer.execute then moves the
 * ownership. Answers the job.
 */
export function acceptTransfer(
  services: Services,
  input: { token: string; userId: string; requestId: string },
): { transfer: TransferRecord; job: Job } {
  const db = services.controlDb;
  const now = services.now();
  const invalid = (why: string) => new AppError('auth.mail_token_invalid', why);
  if (!looksLikeOpaqueToken(input.token))
    throw invalid('This is not a transfer token the service mailed; copy the whole token from the mail.');
  return db
    .transaction(() => {
      const found = findTransferByTokenHash(db, hashOpaqueToken(input.token));
      if (!found) throw invalid('This transfer token is unknown.');
      expireTransfers(db, found.organizationId, now);
      const transfer = getTransfer(db, found.id)!;
      if (transfer.state === 'cancelled') throw invalid('This transfer was cancelled by the owner.');
      if (transfer.state === 'expired')
        throw new AppError(
          'auth.mail_token_expired',
          'This transfer expired (a transfer waits 7 days); ask the owner to start a new one.',
        );
      if (transfer.state !== 'pending')
        throw new AppError('auth.mail_token_used', 'This transfer was already accepted.');
      const user = getUser(db, input.userId);
      if (!user || user.email !== transfer.toEmail)
        throw new AppError(
          'auth.forbidden',
          'This transfer was sent to another address: sign in with the account of the address that received the mail.',
        );
      consumeMailToken(db, 'organization_transfer', input.token, now);
      const job = services.jobs.enqueue(orgTransferExecuteKind, { transfer_id: transfer.id });
      moveTransfer(db, transfer.id, 'pending', 'accepted', now, { acceptedBy: user.id, jobId: job.id });
      appendAudit(
        db,
        {
          organizationId: transfer.organizationId,
          actor: { kind: 'user', id: user.id },
          action: 'transfer.accepted',
          target: user.id,
          requestId: input.requestId,
          details: { transfer_id: transfer.id, job_id: job.id },
        },
        now,
      );
      return { transfer: getTransfer(db, transfer.id)!, job };
    })
    .immediate();
}

/**
 * The org.transfer.execute job: the recipient becomes organization_owner and the owner who
 * started the transfer organization_admin, in one transaction. A transfer no longer accepted
 * (already done, or its organization erased) is a no-op, so a retry changes nothing twice.
 */
export function executeTransfer(services: Pick<AppServices, 'controlDb' | 'now'>, transferId: string): void {
  const db = services.controlDb;
  const now = services.now();
  db.transaction(() => {
    const transfer = getTransfer(db, transferId);
    if (!transfer || transfer.state !== 'accepted' || !transfer.acceptedBy) return;
    const organizationId = transfer.organizationId;
    if (!getUser(db, transfer.acceptedBy)) {
      moveTransfer(db, transfer.id, 'accepted', 'cancelled', now);
      appendAudit(
        db,
        {
          organizationId,
          actor: { kind: 'system' },
          action: 'transfer.failed',
          target: transfer.acceptedBy,
          details: { transfer_id: transfer.id, reason: 'the recipient account no longer exists' },
        },
        now,
      );
      return;
    }
    ensureMemberRole(db, { organizationId, userId: transfer.acceptedBy, role: 'organization_owner' }, now);
    const previous = transfer.fromUserId;
    if (
      previous &&
      previous !== transfer.acceptedBy &&
      memberRole(db, organizationId, previous) === 'organization_owner'
    ) {
      db.prepare(`UPDATE members SET role = 'organization_admin' WHERE organization_id = ? AND user_id = ?`).run(
        organizationId,
        previous,
      );
    }
    moveTransfer(db, transfer.id, 'accepted', 'completed', now);
    appendAudit(
      db,
      {
        organizationId,
        actor: { kind: 'system' },
        action: 'organization.transferred',
        target: transfer.acceptedBy,
        details: { transfer_id: transfer.id, from_user_id: previous, to_user_id: transfer.acceptedBy },
      },
      now,
    );
  }).immediate();
}
