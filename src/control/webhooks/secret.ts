import { createHash, createHmac } from 'node:crypto';

/**
 * A subscription's signing key (docs/webhooks.md "Secrets"): HMAC-SHA256(master key, subscription
 * id + ":" + secret version). Derived whenever it is needed, so no key is stored; rotating bumps
 * the version, and the key of the previous version can still be derived while it signs.
 */
export function deriveSigningKey(masterKey: Uint8Array, subscriptionId: string, version: number): Buffer {
  if (masterKey.length < 32) throw new Error('keys/master.key holds fewer than 32 bytes; it is damaged');
  return createHmac('sha256', masterKey).update(`${subscriptionId}:${version}`, 'utf8').digest();
}

/** The secret as the subscriber is shown it once (Standard Webhooks): `whsec_<base64 key>`. */
export function formatSecret(key: Uint8Array): string {
  return `whsec_${Buffer.from(key).toString('base64')}`;
}

/** The key of a `whsec_<base64>` secret (the prefix is optional, as Standard Webhooks libraries accept). */
export function parseSecret(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
}

/**
 * What the database keeps of a key: its SHA-256, hex. Before signing, the derived key is checked
 * against it, so a data directory whose master key was replaced fails its deliveries with a clear
 * reason instead of signing with a key its subscribers never saw.
 */
export function hashSigningKey(key: Uint8Array): string {
  return createHash('sha256').update(key).digest('hex');
}
