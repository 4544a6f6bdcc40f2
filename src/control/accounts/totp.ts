import { Secret, TOTP } from 'otpauth';
import { AppError } from '../../platform/errors/index.js';
import { readAuthUser } from './account-users.js';
import type { AccountsContext } from './context.js';
import { checkFactorUnderLock } from './factor-lockout.js';
import {
  countUnusedRecoveryCodes,
  consumeRecoveryCode,
  deleteRecoveryCodes,
  replaceRecoveryCodes,
} from './recovery-codes.js';
import { ActivateTotpSchema, parseAccountInput, SecondFactorSchema, type SecondFactorInput } from './schemas.js';
import { deriveMasterSubkey, openSecret, sealSecret } from './secret-box.js';

/** What authenticator apps read (RFC 6238 defaults): HMAC-SHA-1, 6 digits, 30 s steps. */
export const TOTP_PARAMETERS = { algorithm: 'SHA1', digits: 6, period: 30 } as const;
/** One step either side of now is accepted, for clock drift and typing time. */
export const TOTP_WINDOW = 1;
const ISSUER = 'nodectl';
/** 160 bits, the HMAC-SHA-1 block the RFC 4226 recommends. */
const SECRET_BYTES = 20;

interface TotpRow {
  secretCiphertext: string;
  enabledAt: number | null;
  lastUsedStep: number | null;
}

function readTotpRow(ctx: AccountsContext, userId: string): TotpRow | undefined {
  return ctx.db
    .prepare(
      'SELECT secret_ciphertext AS secretCiphertext, enabled_at AS enabledAt, last_used_step AS lastUsedStep FROM user_totp WHERE user_id = ?',
    )
    .get(userId) as TotpRow | undefined;
}

const secretKey = (ctx: AccountsContext) => deriveMasterSubkey(ctx.masterKey, 'nodectl.totp-secret.v1');

function totpOf(base32: string, label: string): TOTP {
  return new TOTP({ issuer: ISSUER, label, ...TOTP_PARAMETERS, secret: Secret.fromBase32(base32) });
}

/** The time step (floor(ms / 30 s)) a code belongs to within ±1 step of `now`, or null. */
export function matchTotpStep(base32: string, code: string, now: number): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totpOf(base32, 'check').validate({ token: code, timestamp: now, window: TOTP_WINDOW });
  return delta === null ? null : Math.floor(now / 1000 / TOTP_PARAMETERS.period) + delta;
}

/**
 * Checks a TOTP code and spends it: accepted only for a step later than the last one used, and
 * the step is recorded in the same statement, so a code (or an earlier one) never works twice.
 */
function spendTotpCode(ctx: AccountsContext, userId: string, row: TotpRow, code: string): boolean {
  const step = matchTotpStep(openSecret(secretKey(ctx), row.secretCiphertext, userId), code, ctx.now());
  if (step === null) return false;
  return (
    ctx.db
      .prepare(
        'UPDATE user_totp SET last_used_step = ? WHERE user_id = ? AND (last_used_step IS NULL OR last_used_step < ?)',
      )
      .run(step, userId, step).changes === 1
  );
}

/**
 * Checks the second factor of a user with 2FA on: 'ok' (and the code is spent), 'missing' (none
 * given) or 'invalid'. A user without 2FA is always 'ok'. Every code counts towards the lockout
 * (./factor-lockout.ts): while locked, or on the wrong code that locks, it throws 429 auth.factor_locked.
 */
export function checkSecondFactor(
  ctx: AccountsContext,
  userId: string,
  factor: { totp?: string | undefined; recoveryCode?: string | undefined },
): 'ok' | 'missing' | 'invalid' {
  const row = readTotpRow(ctx, userId);
  if (!row || row.enabledAt === null) return 'ok';
  const { totp, recoveryCode } = factor;
  if (totp === undefined && recoveryCode === undefined) return 'missing';
  const right = checkFactorUnderLock(ctx, userId, () =>
    totp !== undefined
      ? spendTotpCode(ctx, userId, row, totp)
      : consumeRecoveryCode(ctx.db, ctx.masterKey, userId, recoveryCode!, ctx.now()),
  );
  return right ? 'ok' : 'invalid';
}

export interface TwoFactorStatus {
  enabled: boolean;
  /** Setup started and awaiting its first code. */
  pending: boolean;
  recoveryCodesRemaining: number;
}

/** GET /v1/auth/2fa. */
export function readTwoFactorStatus(ctx: AccountsContext, caller: { userId: string }): TwoFactorStatus {
  const row = readTotpRow(ctx, caller.userId);
  return {
    enabled: row?.enabledAt != null,
    pending: row !== undefined && row.enabledAt === null,
    recoveryCodesRemaining: row?.enabledAt != null ? countUnusedRecoveryCodes(ctx.db, caller.userId) : 0,
  };
}

/**
 * POST /v1/auth/2fa/setup: a new secret, stored encrypted and not yet in force. Returns the secret
 * (base32, for typing in) and the otpauth:// URI (for a QR code). A second setup replaces the first.
 */
export function beginTotpSetup(
  ctx: AccountsContext,
  caller: { userId: string },
): { secret: string; otpauthUri: string } {
  const user = readAuthUser(ctx.db, caller.userId);
  if (!user) throw new AppError('user.not_found', 'The account of this session no longer exists.');
  if (readTotpRow(ctx, user.id)?.enabledAt != null)
    throw new AppError(
      'auth.mfa_already_enabled',
      'Two-factor sign-in is already on; disable it first to enrol another authenticator.',
    );
  const secret = new Secret({ size: SECRET_BYTES }).base32;
  const sealed = sealSecret(secretKey(ctx), secret, user.id);
  ctx.db
    .prepare(
      'INSERT INTO user_totp (user_id, secret_ciphertext, created_at) VALUES (?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET secret_ciphertext = excluded.secret_ciphertext, created_at = excluded.created_at, last_used_step = NULL',
    )
    .run(user.id, sealed, ctx.now());
  return { secret, otpauthUri: totpOf(secret, user.email).toString() };
}

/**
 * POST /v1/auth/2fa/activate: the first code proves the app holds
 * the secret; 2FA is on and 10 recovery codes are returned once.
 */
export function activateTotp(
  ctx: AccountsContext,
  caller: { userId: string },
  input: unknown,
): { recoveryCodes: string[] } {
  const { code } = parseAccountInput(ActivateTotpSchema, input, '2FA activation');
  const row = readTotpRow(ctx, caller.userId);
  if (!row)
    throw new AppError(
      'auth.mfa_not_enrolled',
      'Start with POST /v1/auth/2fa/setup, add the secret to your authenticator app, then send its code here.',
    );
  if (row.enabledAt !== null) throw new AppError('auth.mfa_already_enabled', 'Two-factor sign-in is already on.');
  if (!checkFactorUnderLock(ctx, caller.userId, () => spendTotpCode(ctx, caller.userId, row, code)))
    throw new AppError(
      'auth.mfa_invalid',
      'That code does not match the secret from setup; check the device clock and send the current code.',
    );
  ctx.db.prepare('UPDATE user_totp SET enabled_at = ? WHERE user_id = ?').run(ctx.now(), caller.userId);
  return { recoveryCodes: replaceRecoveryCodes(ctx.db, ctx.masterKey, caller.userId, ctx.now()) };
}

function requireCurrentSecondFactor(
  ctx: AccountsContext,
  userId: string,
  input: SecondFactorInput | unknown,
  what: string,
): void {
  const factor = parseAccountInput(SecondFactorSchema, input, what);
  const row = readTotpRow(ctx, userId);
  if (!row || row.enabledAt === null)
    throw new AppError('auth.mfa_not_enrolled', 'Two-factor sign-in is off for this account.');
  if (checkSecondFactor(ctx, userId, factor) !== 'ok')
    throw new AppError(
      'auth.mfa_invalid',
      'The code is wrong or already used; send the current code of your authenticator app or an unused recovery code.',
    );
}

/** POST /v1/auth/2fa/disable: needs a current TOTP or recovery code, so a stolen session alone cannot turn 2FA off. */
export function disableTotp(ctx: AccountsContext, caller: { userId: string }, input: unknown): void {
  requireCurrentSecondFactor(ctx, caller.userId, input, '2FA disable');
  ctx.db
    .transaction(() => {
      ctx.db.prepare('DELETE FROM user_totp WHERE user_id = ?').run(caller.userId);
      deleteRecoveryCodes(ctx.db, caller.userId);
    })
    .immediate();
}

/** POST /v1/auth/2fa/recovery-codes: 10 new codes replace every earlier one; needs a current second factor. */
export function regenerateRecoveryCodes(
  ctx: AccountsContext,
  caller: { userId: string },
  input: unknown,
): { recoveryCodes: string[] } {
  requireCurrentSecondFactor(ctx, caller.userId, input, 'recovery codes');
  return { recoveryCodes: replaceRecoveryCodes(ctx.db, ctx.masterKey, caller.userId, ctx.now()) };
}
