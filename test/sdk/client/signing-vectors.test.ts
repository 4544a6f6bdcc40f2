import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  canonicalString,
  deriveSigningKey,
  parseConnectorToken,
  sha256Hex,
  signCanonical,
  signRequest,
} from '../../../src/platform/contract/signing.js';
import { computeItemChecksum } from '../../../src/platform/contract/checksum.js';
import { PROJECT_ROOT } from '../../helpers/paths.js';

interface SignatureVector {
  name: string;
  token: string;
  website_id: string;
  method: string;
  path: string;
  body: string;
  x_timestamp: string;
  x_nonce: string;
  signing_key_hex: string;
  body_sha256: string;
  canonical: string;
  signature: string;
}
// The published svc.connector.hmac.v1 vectors, kept verbatim in the repository (test/data).
const vectors = JSON.parse(readFileSync(join(PROJECT_ROOT, 'test', 'data', 'connector-hmac-v1.json'), 'utf8')) as {
  signatures: SignatureVector[];
  checksums: Array<{ name: string; item: Record<string, unknown>; checksum: string }>;
};

describe('client signer reproduces svc.connector.hmac.v1 vectors', () => {
  it('has vectors to check', () => expect(vectors.signatures.length).toBeGreaterThanOrEqual(5));
  for (const v of vectors.signatures) {
    it(v.name, () => {
      const token = parseConnectorToken(v.token)!;
      expect(deriveSigningKey(token.secret, v.website_id).toString('hex')).toBe(v.signing_key_hex);
      expect(sha256Hex(Buffer.from(v.body, 'utf8'))).toBe(v.body_sha256);
      const canonical = canonicalString({
        method: v.method,
        path: v.path,
        bodySha256: v.body_sha256,
        timestamp: v.x_timestamp,
        nonce: v.x_nonce,
        websiteId: v.website_id,
      });
      expect(canonical).toBe(v.canonical);
      expect(signCanonical(Buffer.from(v.signing_key_hex, 'hex'), canonical)).toBe(v.signature);
      const headers = signRequest({
        token: v.token,
        websiteId: v.website_id,
        method: v.method,
        path: v.path,
        body: v.body,
        timestamp: Number(v.x_timestamp),
        nonce: v.x_nonce,
      });
      expect(headers).toEqual({
        authorization: `Bearer ${v.token}`,
        'x-signature': v.signature,
        'x-timestamp': v.x_timestamp,
        'x-nonce': v.x_nonce,
        'x-body-sha256': v.body_sha256,
      });
    });
  }
  it('a one-byte change of the body changes the signature', () => {
    const v = vectors.signatures[0]!;
    const headers = signRequest({
      token: v.token,
      websiteId: v.website_id,
      path: v.path,
      body: v.body + ' ',
      timestamp: Number(v.x_timestamp),
      nonce: v.x_nonce,
    });
    expect(headers['x-signature']).not.toBe(v.signature);
  });
});

describe('computeItemChecksum reproduces the checksum vectors', () => {
  for (const v of vectors.checksums) {
    it(v.name, () => expect(computeItemChecksum(v.item as never)).toBe(v.checksum));
  }
});
