import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The stored form of a connector secret: HMAC-SHA256(master key, connectorId:tokenVersion:secret).
 * Binding the id and the token version means a rotated-away secret can never match again, and a
 * stolen database without the master key (keys/master.key) reveals nothing to brute-force offline.
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
