import { timingSafeEqual } from 'node:crypto';
import { AppError, storageUnavailableError } from '../../platform/errors/index.js';
import { decodeUtf8Body } from '../../platform/http/index.js';
import {
  canonicalString,
  deriveSigningKey,
  parseConnectorToken,
  sha256Hex,
  signCanonical,
  SOURCE_TYPES,
} from '../../platform/contract/index.js';
import {
  readConnectorCredential,
  type ConnectorCredential,
  matchConnectorSecret,
} from '../../control/connectors/index.js';
import type { Db } from '../../platform/storage/index.js';
import type { NonceStore } from './stores/types.js';

/** Timestamp window, seconds, edge inclusive (docs/contract.md#limits). */
export const TIMESTAMP_WINDOW_SECONDS = 300;
/** Nonces are kept twice the skew window (docs/contract.md#limits). */
export const NONCE_TTL_MS = 600_000;

/** The headers the verifier reads, lowercased as Node gives them. */
export type IngestHeaders = Record<string, string | string[] | undefined>;

export interface VerifyInput {
  method: string;
  /** Request URL; only the pathname is signed. */
  url: string;
  headers: IngestHeaders;
  rawBody: Buffer;
  nowMs: number;
}

export interface VerifierDeps {
  controlDb: Db;
  masterKey: Uint8Array;
  nonces: NonceStore;
}

/** A request that passed all five checks: the body may now be trusted. */
export interface VerifiedIngest {
  connector: ConnectorCredential;
  websiteId: string;
  body: Record<string, unknown>;
  bodySha256: string;
}

const SOURCE_TYPE_SET: ReadonlySet<string> = new Set(SOURCE_TYPES);

function header(headers: IngestHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function invalidSignature(message: string): AppError {
  return new AppError('auth.invalid_signature', message);
}

/** Parses the raw body; invalid UTF-8 or malformed JSON is 422 validation.failed (nothing else can be checked). */
export function parseJsonBody(rawBody: Buffer): Record<string, unknown> {
  const text = decodeUtf8Body(rawBody);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new AppError('validation.failed', 'The body is not valid JSON.', {
      details: { fields: [{ path: '(body)', message: (error as Error).message }] },
    });
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new AppError('validation.failed', 'The body must be a JSON object.', {
      details: { fields: [{ path: '(root)', message: 'must be an object' }] },
    });
  }
  if (
    typeof (body as Record<string, unknown>).website_id !== 'string' ||
    (body as Record<string, unknown>).website_id === ''
  ) {
    throw new AppError(
      'validation.failed',
      'The body needs website_id (a string): it is the HKDF salt of the signature.',
      { details: { fields: [{ path: 'website_id', message: 'required string' }] } },
    );
  }
  return body as Record<string, unknown>;
}

/** The connector id a request's Authorization names, before anything is verified (failure counting only). */
export function claimedConnectorId(headers: IngestHeaders): string | undefined {
  const authorization = header(headers, 'authorization');
  const match = authorization ? /^Bearer\s+(\S+)$/i.exec(authorization) : null;
  return match?.[1] ? parseConnectorToken(match[1])?.connectorId : undefined;
}

/** Unix seconds a client could mean; more digits are milliseconds (or worse), answered as a skew. */
const SECONDS_PATTERN = /^[0-9]{1,16}$/;
/** From here on a timestamp reads as milliseconds: 10^11 s is the year 5138. */
const MILLISECONDS_FROM = 1e11;

/**
 * Verifies a signed ingest request in the contract's order (docs/ingest.md#3-signing-svcconnectorhmacv1):
 * signature over the raw body with the connector's current secret (a rotated-away one is a stale
 * token, auth.token_revoked), connector current, timestamp window, nonce replay guard, scope.
 * website_id is read from the body only to derive the key; nothing is trusted before step 1, and
 * only an authenticated, current connector writes a nonce.
 */
export async function verifyIngestRequest(input: VerifyInput, deps: VerifierDeps): Promise<VerifiedIngest> {
  const authorization = header(input.headers, 'authorization');
  const match = authorization ? /^Bearer\s+(\S+)$/i.exec(authorization) : null;
  const token = match?.[1] ? parseConnectorToken(match[1]) : undefined;
  if (!token)
    throw new AppError(
      'auth.unauthenticated',
      'Send Authorization: Bearer <connectorId>.<secret> with the connector token.',
    );
  const body = parseJsonBody(input.rawBody);
  const websiteId = body.website_id as string;

  // 1. Signature over the canonical string and the exact body bytes.
  const signature = header(input.headers, 'x-signature');
  if (!signature) throw invalidSignature('X-Signature is missing: sign every ingest request (see docs/ingest.md).');
  const timestamp = header(input.headers, 'x-timestamp');
  const nonce = header(input.headers, 'x-nonce');
  if (!timestamp || !SECONDS_PATTERN.test(timestamp))
    throw invalidSignature('X-Timestamp must be the signing time in unix seconds.');
  if (!nonce || nonce.length > 200)
    throw invalidSignature('X-Nonce must be a unique value of 1 to 200 characters per request.');
  const bodySha256 = sha256Hex(input.rawBody);
  const claimedSha = header(input.headers, 'x-body-sha256');
  if (!claimedSha) throw invalidSignature('X-Body-Sha256 is missing: send the lowercase hex SHA-256 of the body.');
  if (claimedSha.toLowerCase() !== bodySha256)
    throw invalidSignature('X-Body-Sha256 does not match the body received: send the exact bytes you hashed.');
  const path = input.url.split('?')[0] ?? input.url;
  const expected = signCanonical(
    deriveSigningKey(token.secret, websiteId),
    canonicalString({ method: input.method, path, bodySha256, timestamp, nonce, websiteId }),
  );
  const given = Buffer.from(signature.toLowerCase(), 'utf8');
  if (given.length !== expected.length || !timingSafeEqual(given, Buffer.from(expected, 'utf8'))) {
    throw invalidSignature(
      'X-Signature does not match: sign METHOD, path, body sha256, X-Timestamp, X-Nonce and website_id with the HKDF key of your secret.',
    );
  }
  // The key is the connector's only when the secret is its current one; a rotated-away secret is
  // a stale token version. A fixed number of hash checks whether or not the connector exists.
  const connector = readConnectorCredential(deps.controlDb, token.connectorId);
  const secretMatch = matchConnectorSecret(
    deps.masterKey,
    token.connectorId,
    token.secret,
    connector && { tokenVersion: connector.tokenVersion, secretHash: connector.secretHash },
    connector?.retiredSecrets ?? [],
  );
  if (connector && secretMatch === 'retired')
    throw new AppError(
      'auth.token_revoked',
      'This connector token was replaced by a rotation (a stale token version): use the newest token, shown at its last rotate.',
    );
  if (connector && secretMatch === 'none')
    throw invalidSignature(
      "X-Signature is not signed with this connector's current secret: use the token shown at its last create or rotate.",
    );

  // 2. The connector is current.
  if (!connector || secretMatch !== 'current' || connector.status !== 'active') {
    const why = connector?.status === 'suspended' ? 'is suspended' : 'is revoked or unknown';
    throw new AppError('auth.token_revoked', `The connector token ${why}: ask the website admin for a current token.`);
  }

  // 3. Timestamp window, edge accepted.
  const sent = Number(timestamp);
  const skew = Math.floor(input.nowMs / 1000) - sent;
  if (Math.abs(skew) > TIMESTAMP_WINDOW_SECONDS) {
    throw new AppError(
      'auth.timestamp_skew',
      sent >= MILLISECONDS_FROM
        ? `X-Timestamp ${timestamp} looks like milliseconds: send unix seconds (Math.floor(Date.now() / 1000)) and re-sign.`
        : `X-Timestamp is ${Math.abs(skew)} s ${skew > 0 ? 'behind' : 'ahead of'} the server clock (at most ${TIMESTAMP_WINDOW_SECONDS} s): correct the clock (heartbeat returns server_time_unix) and re-sign.`,
    );
  }

  // 4. Nonce replay guard, fail closed.
  let fresh: boolean;
  try {
    fresh = await deps.nonces.claim(token.connectorId, nonce, input.nowMs, NONCE_TTL_MS);
  } catch (error) {
    throw (
      storageUnavailableError(error) ??
      new AppError('service.unavailable', 'The replay guard is unavailable; retry shortly with a fresh nonce.', {
        cause: error,
      })
    );
  }
  if (!fresh)
    throw new AppError(
      'auth.nonce_replay',
      'X-Nonce was already used: send a fresh nonce (and timestamp) with every request, retries included.',
    );

  // 5. Scope: the bound website and the allowed source types.
  if (websiteId !== connector.websiteId)
    throw new AppError('auth.scope_violation', `This connector may only write to its own website, not ${websiteId}.`);
  const types = new Set<string>();
  const item = body.item as { type?: unknown } | undefined;
  if (item && typeof item.type === 'string') types.add(item.type);
  if (Array.isArray(body.items))
    for (const it of body.items as Array<{ type?: unknown } | null>)
      if (it && typeof it.type === 'string') types.add(it.type);
  const outOfScope = [...types].filter((t) => SOURCE_TYPE_SET.has(t) && !connector.sourceTypes.has(t)).sort();
  if (outOfScope.length > 0) {
    throw new AppError(
      'auth.scope_violation',
      `Item type ${outOfScope.join(', ')} is outside this connector's scope (${[...connector.sourceTypes].sort().join(', ')}).`,
      { details: { types: outOfScope } },
    );
  }
  return { connector, websiteId, body, bodySha256 };
}
