import type { Db } from '../../platform/storage/index.js';
import { nowIso, hashPassword, verifyPassword, PASSWORD_HASH_COST, type ScryptCost } from '../records/index.js';

/** A user as sign-in sees it. password_hash is NULL for an account made by Google sign-in. */
export interface AuthUser {
  id: string;
  email: string;
  passwordHash: string | null;
  emailVerifiedAt: string | null;
  tokenVersion: number;
  createdAt: string;
}

/** The user object of a session answer and of GET /v1/auth/me. */
export interface AccountUser {
  id: string;
  email: string;
  emailVerified: boolean;
  mfaEnabled: boolean;
  createdAt: string;
}

const SELECT =
  'SELECT id, email, password_hash AS passwordHash, email_verified_at AS emailVerifiedAt, token_version AS tokenVersion, created_at AS createdAt FROM users';

export function readAuthUser(db: Db, id: string): AuthUser | undefined {
  return db.prepare(`${SELECT} WHERE id = ?`).get(id) as AuthUser | undefined;
}

export function findAuthUserByEmail(db: Db, email: string): AuthUser | undefined {
  return db.prepare(`${SELECT} WHERE email = ?`).get(email.toLowerCase()) as AuthUser | undefined;
}

export function isTotpEnabled(db: Db, userId: string): boolean {
  return db.prepare('SELECT 1 FROM user_totp WHERE user_id = ? AND enabled_at IS NOT NULL').get(userId) !== undefined;
}

export function toAccountUser(db: Db, user: AuthUser): AccountUser {
  return {
    id: user.id,
    email: user.email,
    emailVerified: user.emailVerifiedAt !== null,
    mfaEnabled: isTotpEnabled(db, user.id),
    createdAt: user.createdAt,
  };
}

export async function setPassword(
  db: Db,
  userId: string,
  password: string,
  cost: ScryptCost = PASSWORD_HASH_COST,
): Promise<void> {
  const hash = await hashPassword(password, cost);
  db.prepare('UPDATE users SET password_hash = ? WHERE id = ?').run(hash, userId);
}

/** users.email_verified_at is ISO-8601 text, as released in the first schema. */
export function markEmailVerified(db: Db, userId: string, now: number): void {
  db.prepare('UPDATE users SET email_verified_at = ? WHERE id = ? AND email_verified_at IS NULL').run(
    nowIso(now),
    userId,
  );
}

/** The dummy hash of each cost in use (one in a daemon). */
const dummyHashes = new Map<string, Promise<string>>();

/** Computes the dummy hash ahead of the first sign-in, so even that one takes the usual time. */
export function primeDummyPasswordHash(cost: ScryptCost = PASSWORD_HASH_COST): Promise<string> {
  const key = `${cost.N}$${cost.r}$${cost.p}`;
  let hash = dummyHashes.get(key);
  if (!hash) dummyHashes.set(key, (hash = hashPassword('nodectl dummy password for unknown accounts', cost)));
  return hash;
}

/**
 * Checks a password against a stored hash, or, when there is none (unknown email, or an account
 * without a password), against a dummy hash with the same scrypt cost, so the answer takes the same
 * time and does not tell whether the account exists.
 */
export async function verifyPasswordOrDummy(
  password: string,
  stored: string | null | undefined,
  cost: ScryptCost = PASSWORD_HASH_COST,
): Promise<boolean> {
  if (stored) return verifyPassword(password, stored);
  await verifyPassword(password, await primeDummyPasswordHash(cost));
  return false;
}
