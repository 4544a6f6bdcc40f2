import { createHmac, randomInt } from 'node:crypto';
import type { Db } from '../../platform/storage/index.js';
import { deriveMasterSubkey } from './secret-box.js';

export const RECOVERY_CODE_COUNT = 10;
/** No 0/o, 1/l/i: codes are read off paper. 31 symbols, 10 per code: about 49 bits each. */
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const CODE_LENGTH = 10;

/** Spaces, dashes and case do not matter when a code is typed back. */
export function normalizeRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, '');
}

/**
 * The stored form: HMAC-SHA256 under a key derived from keys/master.key, bound to the user. About
 * 49 bits is too few to survive a brute force of a plain hash from a stolen database; without the
 * master key the HMAC reveals nothing.
 */
function hashRecoveryCode(masterKey: Uint8Array, userId: string, code: string): string {
  return createHmac('sha256', deriveMasterSubkey(masterKey, 'nodectl.recovery-code.v1'))
    .update(`${userId}:${normalizeRecoveryCode(code)}`, 'utf8')
    .digest('hex');
}

function newRecoveryCode(): string {
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

/** Replaces every recovery code of the user with 10 new ones; returns them (shown once). */
export function replaceRecoveryCodes(db: Db, masterKey: Uint8Array, userId: string, now: number): string[] {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  db.transaction(() => {
    db.prepare('DELETE FROM recovery_codes WHERE user_id = ?').run(userId);
    const insert = db.prepare(
      'INSERT INTO recovery_codes (user_id, code_hash, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
    );
    for (const code of codes) insert.run(userId, hashRecoveryCode(masterKey, userId, code), now);
  }).immediate();
  return codes;
}

/** Uses one recovery code: true once, false for a wrong or already used one. */
export function consumeRecoveryCode(db: Db, masterKey: Uint8Array, userId: string, code: string, now: number): boolean {
  const normalized = normalizeRecoveryCode(code);
  if (normalized.length !== CODE_LENGTH) return false;
  return (
    db
      .prepare('UPDATE recovery_codes SET used_at = ? WHERE user_id = ? AND code_hash = ? AND used_at IS NULL')
      .run(now, userId, hashRecoveryCode(masterKey, userId, normalized)).changes === 1
  );
}

export function countUnusedRecoveryCodes(db: Db, userId: string): number {
  return db
    .prepare('SELECT COUNT(*) FROM recovery_codes WHERE user_id = ? AND used_at IS NULL')
    .pluck()
    .get(userId) as number;
}

export function deleteRecoveryCodes(db: Db, userId: string): void {
  db.prepare('DELETE FROM recovery_codes WHERE user_id = ?').run(userId);
}
