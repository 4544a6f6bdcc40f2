import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * What a key derived from keys/master.key is for. Each purpose gets its own key (HKDF-SHA256,
 * info = the purpose), so a key used to encrypt is never the one used to hash, and adding a
 * purpose never changes an existing key.
 */
export type MasterKeyPurpose = 'nodectl.totp-secret.v1' | 'nodectl.recovery-code.v1';

/** A 32-byte key for one purpose, derived from the data directory's master key (RFC 5869). */
export function deriveMasterSubkey(masterKey: Uint8Array, purpose: MasterKeyPurpose): Buffer {
  if (masterKey.length < 32) throw new Error('keys/master.key holds fewer than 32 bytes; it is damaged');
  return Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), Buffer.from(purpose, 'utf8'), 32));
}

const VERSION = 'v1';
const IV_BYTES = 12;
/** Fixed, so a truncated tag (which Node would otherwise accept down to 4 bytes) never verifies. */
const TAG_BYTES = 16;

/**
 * Encrypts a small secret with AES-256-GCM: `v1.<iv>.<ciphertext>.<tag>`, base64url parts. `context`
 * is bound as additional data (e.g. the owning user id), so a ciphertext copied onto another row
 * does not decrypt.
 */
export function sealSecret(key: Uint8Array, plaintext: string, context: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [
    VERSION,
    iv.toString('base64url'),
    ciphertext.toString('base64url'),
    cipher.getAuthTag().toString('base64url'),
  ].join('.');
}

/** Decrypts what sealSecret wrote; throws if it was altered, moved to another context, or the key differs. */
export function openSecret(key: Uint8Array, sealed: string, context: string): string {
  const [version, iv, ciphertext, tag, ...rest] = sealed.split('.');
  if (version !== VERSION || !iv || ciphertext === undefined || !tag || rest.length > 0)
    throw new Error('not a sealed secret (expected v1.<iv>.<ciphertext>.<tag>)');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}
