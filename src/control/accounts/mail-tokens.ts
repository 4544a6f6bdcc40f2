import type { Db } from '../../platform/storage/sqlite.js';
import { AppError } from '../../platform/errors/app-error.js';
import { hashOpaqueToken, looksLikeOpaqueToken, newOpaqueToken } from './opaque-tokens.js';

export const MAIL_TOKEN_KINDS = [
  'email_verification',
  'password_reset',
  'organization_transfer',
  'invitation',
] as const;
export type MailTokenKind = (typeof MAIL_TOKEN_KINDS)[number];

const HOUR = 60 * 60 * 1000;
/** How long each mailed token works (docs/contract.md#sessions: reset 1 h, verification 24 h; transfers 7 days). */
export const MAIL_TOKEN_LIFETIME_MS: Readonly<Record<MailTokenKind, number>> = {
  email_verification: 24 * HOUR,
  password_reset: HOUR,
  organization_transfer: 7 * 24 * HOUR,
  invitation: 7 * 24 * HOUR,
};

/** Kinds where a new token replaces the user's earlier unused ones (only the latest mail works). */
const SUPERSEDES: ReadonlySet<MailTokenKind> = new Set(['email_verification', 'password_reset']);

/** Who a token was issued for, as consume() gives it back. */
export interface MailTokenSubject {
  kind: MailTokenKind;
  userId: string | null;
  email: string;
  /** Whatever the issuer stored with it (e.g. the organization of a transfer). */
  payload: Record<string, unknown> | null;
  createdAt: number;
}

export interface IssueMailTokenInput {
  userId?: string | null;
  email: string;
  payload?: Record<string, unknown>;
  /** Default MAIL_TOKEN_LIFETIME_MS[kind]. */
  ttlMs?: number;
}

/** Issues a single-use token; only its hash is stored. The token itself goes into a mail, never a log. */
export function issueMailToken(db: Db, kind: MailTokenKind, input: IssueMailTokenInput, now: number): string {
  const token = newOpaqueToken();
  const ttl = input.ttlMs ?? MAIL_TOKEN_LIFETIME_MS[kind];
  db.transaction(() => {
    if (SUPERSEDES.has(kind) && input.userId)
      db.prepare('DELETE FROM mail_tokens WHERE kind = ? AND user_id = ? AND used_at IS NULL').run(kind, input.userId);
    db.prepare(
      'INSERT INTO mail_tokens (token_hash, kind, user_id, email, payload, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ).run(
      hashOpaqueToken(token),
      kind,
      input.userId ?? null,
      input.email,
      input.payload ? JSON.stringify(input.payload) : null,
      now,
      now + ttl,
    );
  }).immediate();
  return token;
}

interface MailTokenRow {
  kind: MailTokenKind;
  userId: string | null;
  email: string;
  payload: string | null;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
}

/**
 * Uses a token once: gives back its subject, or fails with auth.mail_token_invalid (unknown, or of
 * another kind), auth.mail_token_expired or auth.mail_token_used. Marking it used and reading it is
 * one transaction, so two concurrent requests cannot both use it.
 */
export function consumeMailToken(db: Db, kind: MailTokenKind, token: string, now: number): MailTokenSubject {
  if (!looksLikeOpaqueToken(token))
    throw new AppError(
      'auth.mail_token_invalid',
      'This token is not one the service mailed; copy the whole token from the mail.',
    );
  return db
    .transaction(() => {
      const row = db
        .prepare(
          'SELECT kind, user_id AS userId, email, payload, created_at AS createdAt, expires_at AS expiresAt, used_at AS usedAt FROM mail_tokens WHERE token_hash = ?',
        )
        .get(hashOpaqueToken(token)) as MailTokenRow | undefined;
      if (!row || row.kind !== kind)
        throw new AppError(
          'auth.mail_token_invalid',
          'This token is unknown or was sent for another purpose; a newer mail may have replaced it.',
        );
      if (row.usedAt !== null)
        throw new AppError('auth.mail_token_used', 'This token was already used; each mailed token works once.');
      if (now >= row.expiresAt)
        throw new AppError('auth.mail_token_expired', 'This token expired; ask for a new mail.');
      db.prepare('UPDATE mail_tokens SET used_at = ? WHERE token_hash = ?').run(now, hashOpaqueToken(token));
      return {
        kind: row.kind,
        userId: row.userId,
        email: row.email,
        payload: row.payload === null ? null : (JSON.parse(row.payload) as Record<string, unknown>),
        createdAt: row.createdAt,
      };
    })
    .immediate();
}

/** Deletes tokens that expired before `before` (used or not); they can only ever fail. */
export function pruneMailTokens(db: Db, before: number): number {
  return db.prepare('DELETE FROM mail_tokens WHERE expires_at < ?').run(before).changes;
}
