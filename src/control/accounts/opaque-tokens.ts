import { createHash, randomBytes } from 'node:crypto';

/**
 * A bearer token the service hands out and later looks up: 32 random bytes, base64url. Only its
 * SHA-256 is stored: for 256 random bits a plain hash is enough (nothing to brute-force), and a
 * leaked database yields no usable token.
 */
export function newOpaqueToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashOpaqueToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A presented token that cannot be one of ours is refused before any lookup. */
export function looksLikeOpaqueToken(token: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(token);
}
