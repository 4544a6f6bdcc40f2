import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The stored form of a connector secret: HMAC-SHA256(master key, connectorId:tokenVersion:secret).
 * Binding the id and the token version means a rotated-away secret never matches the current hash
 * (only its own retired one, which tells a stale token from a wrong secret), and a stolen
 * database without the master key (keys/master.key) reveals nothing to brute-force offline.
 */
export function hashConnectorSecret(
  masterKey: Uint8Array,
  connectorId: string,
  tokenVersion: number,
  secret: string,
): string {
  return createHmac('sha256', masterKey).update(`${connectorId}:${tokenVersion}:${secret}`, 'utf8').digest('hex');
}

/** A random connector secret: 32 bytes, base64url (never contains a dot). */
export function newConnectorSecret(): string {
  return randomBytes(32).toString('base64url');
}

const DUMMY_HASH = '0'.repeat(64);

/**
 * Checks a presented secret in constant time. For an unknown connector pass `stored` undefined:
 * the same HMAC and comparison run against a dummy so the timing does not reveal existence.
 */
export function verifyConnectorSecret(
  masterKey: Uint8Array,
  connectorId: string,
  tokenVersion: number,
  secret: string,
  stored: string | undefined,
): boolean {
  const computed = Buffer.from(hashConnectorSecret(masterKey, connectorId, tokenVersion, secret), 'hex');
  const expected = Buffer.from(stored !== undefined && /^[0-9a-f]{64}$/.test(stored) ? stored : DUMMY_HASH, 'hex');
  return timingSafeEqual(computed, expected) && stored !== undefined;
}

/**
 * How many rotated-away secrets of a connector are kept and checked (docs/decisions.md): a token
 * older than this many rotations no longer matches anything and answers like a wrong secret.
 */
export const RETIRED_SECRETS_KEPT = 5;

/** One stored secret hash and the token version it was made for. */
export interface StoredSecret {
  tokenVersion: number;
  secretHash: string;
}

/** Which stored secret a presented one is: the current, a rotated-away one, or none. */
export type SecretMatch = 'current' | 'retired' | 'none';

/**
 * Matches a presented secret with a fixed amount of work: one check against the current hash and
 * RETIRED_SECRETS_KEPT against retired ones, missing slots (and an unknown connector, `current`
 * undefined) padded with dummy checks, so neither existence nor the rotation count shows in timing.
 */
export function matchConnectorSecret(
  masterKey: Uint8Array,
  connectorId: string,
  secret: string,
  current: StoredSecret | undefined,
  retired: readonly StoredSecret[],
): SecretMatch {
  const isCurrent = verifyConnectorSecret(
    masterKey,
    connectorId,
    current?.tokenVersion ?? 1,
    secret,
    current?.secretHash,
  );
  let isRetired = false;
  for (let slot = 0; slot < RETIRED_SECRETS_KEPT; slot += 1) {
    const stored = retired[slot];
    // Version 0 is never issued: a dummy slot can only compare against the dummy hash.
    const matched = verifyConnectorSecret(
      masterKey,
      connectorId,
      stored?.tokenVersion ?? 0,
      secret,
      stored?.secretHash,
    );
    isRetired = matched || isRetired;
  }
  if (isCurrent) return 'current';
  return isRetired && current !== undefined ? 'retired' : 'none';
}
