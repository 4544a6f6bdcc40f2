import { createHash, createHmac, hkdfSync } from 'node:crypto';
import { SIGNING_SCHEME } from './versions.js';

/** A connector token split into its parts: `<connectorId>.<secret>`, split on the first dot. */
export interface ConnectorToken {
  connectorId: string;
  secret: string;
}

/** Splits `<connectorId>.<secret>` on the first dot; undefined when either part is empty. */
export function parseConnectorToken(token: string): ConnectorToken | undefined {
  const dot = token.indexOf('.');
  if (dot <= 0 || dot === token.length - 1) return undefined;
  return { connectorId: token.slice(0, dot), secret: token.slice(dot + 1) };
}

/** HKDF-SHA256(ikm = secret as UTF-8, salt = websiteId, info = scheme id, 32 bytes). */
export function deriveSigningKey(secret: string, websiteId: string): Buffer {
  return Buffer.from(
    hkdfSync(
      'sha256',
      Buffer.from(secret, 'utf8'),
      Buffer.from(websiteId, 'utf8'),
      Buffer.from(SIGNING_SCHEME, 'utf8'),
      32,
    ),
  );
}

/** Lowercase hex SHA-256 of the exact body bytes. */
export function sha256Hex(body: Uint8Array | string): string {
  return createHash('sha256').update(body).digest('hex');
}

export interface CanonicalParts {
  method: string;
  path: string;
  bodySha256: string;
  timestamp: string | number;
  nonce: string;
  websiteId: string;
}

/** The six-line canonical string: METHOD, path, body sha, timestamp, nonce, website id. */
export function canonicalString(parts: CanonicalParts): string {
  const pathOnly = parts.path.split('?')[0] ?? '';
  return [
    parts.method.toUpperCase(),
    pathOnly,
    parts.bodySha256,
    String(parts.timestamp),
    parts.nonce,
    parts.websiteId,
  ].join('\n');
}

/** Lowercase hex HMAC-SHA256(signingKey, canonical). */
export function signCanonical(signingKey: Uint8Array, canonical: string): string {
  return createHmac('sha256', signingKey).update(canonical, 'utf8').digest('hex');
}

export interface SignRequestInput {
  token: string;
  websiteId: string;
  method?: string;
  path: string;
  /** The exact bytes that will be sent. */
  body: Uint8Array | string;
  /** Unix seconds; default now. */
  timestamp?: number;
  /** Default: a random UUID. */
  nonce?: string;
  /** Precomputed signing key for this (secret, websiteId), to skip HKDF on every request. */
  signingKey?: Uint8Array;
}

export interface SignedHeaders {
  authorization: string;
  'x-signature': string;
  'x-timestamp': string;
  'x-nonce': string;
  'x-body-sha256': string;
}

/** Signs one request per the scheme and returns the headers to send with it. */
export function signRequest(input: SignRequestInput): SignedHeaders {
  const token = parseConnectorToken(input.token);
  if (!token) throw new Error('The connector token must look like <connectorId>.<secret>.');
  const bodySha256 = sha256Hex(input.body);
  const timestamp = String(input.timestamp ?? Math.floor(Date.now() / 1000));
  const nonce = input.nonce ?? crypto.randomUUID();
  const key = input.signingKey ?? deriveSigningKey(token.secret, input.websiteId);
  const canonical = canonicalString({
    method: input.method ?? 'POST',
    path: input.path,
    bodySha256,
    timestamp,
    nonce,
    websiteId: input.websiteId,
  });
  return {
    authorization: `Bearer ${input.token}`,
    'x-signature': signCanonical(key, canonical),
    'x-timestamp': timestamp,
    'x-nonce': nonce,
    'x-body-sha256': bodySha256,
  };
}
