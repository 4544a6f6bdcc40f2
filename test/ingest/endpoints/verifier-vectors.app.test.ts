import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConnectorToken } from '../../../src/platform/contract/signing.js';
import { hashConnectorSecret } from '../../../src/control/connectors/secret-hash.js';
import { SOURCE_TYPES } from '../../../src/platform/contract/ingest-item.js';
import { createSqliteNonceStore } from '../../../src/ingest/endpoints/stores/sqlite-stores.js';
import { verifyIngestRequest, type VerifierDeps } from '../../../src/ingest/endpoints/verify.js';
import { openControlDb } from '../../../src/platform/storage/control.js';
import { dataDirLayout } from '../../../src/platform/storage/data-dir.js';
import type { Db } from '../../../src/platform/storage/sqlite.js';
import { makeTempDir, PROJECT_ROOT } from '../../helpers/paths.js';

// The published svc.connector.hmac.v1 vectors, kept verbatim in the repository (test/data).
const vectors = JSON.parse(readFileSync(join(PROJECT_ROOT, 'test', 'data', 'connector-hmac-v1.json'), 'utf8'))
  .signatures as Array<Record<string, string>>;
const masterKey = Buffer.alloc(32, 7);
let temp: { dir: string; cleanup: () => void };
let db: Db;
let deps: VerifierDeps;

beforeAll(() => {
  temp = makeTempDir('nodectl-verifier-');
  db = openControlDb(dataDirLayout(temp.dir));
  db.prepare(
    `INSERT INTO organizations (id, name, slug, plan, created_at) VALUES ('org_1', 'O', 'o', 'pro', '2026-01-01T00:00:00Z')`,
  ).run();
  for (const v of vectors) {
    const token = parseConnectorToken(v.token!)!;
    db.prepare(
      `INSERT OR IGNORE INTO websites (id, organization_id, domain, name, created_at) VALUES (?, 'org_1', ?, 'W', '2026-01-01T00:00:00Z')`,
    ).run(v.website_id, `${v.website_id}.example.com`);
    db.prepare(
      `INSERT OR IGNORE INTO connectors (id, website_id, name, connector_type, source_types, secret_hash, token_version, status, created_at, updated_at) VALUES (?, ?, 'c', 't', ?, ?, 1, 'active', 'x', 'x')`,
    ).run(
      token.connectorId,
      v.website_id,
      JSON.stringify(SOURCE_TYPES),
      hashConnectorSecret(masterKey, token.connectorId, 1, token.secret),
    );
  }
  deps = { controlDb: db, masterKey, nonces: createSqliteNonceStore(db) };
});
afterAll(() => {
  db.close();
  temp.cleanup();
});

function input(v: Record<string, string>, overrides: { signature?: string; nonce?: string; body?: string } = {}) {
  return {
    method: v.method!.toUpperCase(),
    url: v.path! + '?ignored=query',
    rawBody: Buffer.from(overrides.body ?? v.body!, 'utf8'),
    nowMs: Number(v.x_timestamp) * 1000,
    headers: {
      authorization: `Bearer ${v.token}`,
      'x-signature': overrides.signature ?? v.signature,
      'x-timestamp': v.x_timestamp,
      'x-nonce': overrides.nonce ?? v.x_nonce,
      'x-body-sha256': v.body_sha256,
    },
  };
}

describe('server verifier accepts every svc.connector.hmac.v1 vector', () => {
  it('has vectors to check', () => expect(vectors.length).toBeGreaterThanOrEqual(5));
  for (const v of vectors) {
    it(v.name!, async () => {
      const verified = await verifyIngestRequest(input(v), deps);
      expect(verified.bodySha256).toBe(v.body_sha256);
      expect(verified.websiteId).toBe(v.website_id);
      expect(verified.connector.id).toBe(parseConnectorToken(v.token!)!.connectorId);
      // The same request again is a replay.
      await expect(verifyIngestRequest(input(v), deps)).rejects.toMatchObject({ code: 'auth.nonce_replay' });
    });
  }
  it('rejects a flipped signature digit and a changed body byte', async () => {
    const v = vectors[0]!;
    const flipped = v.signature!.slice(0, -1) + (v.signature!.endsWith('0') ? '1' : '0');
    await expect(verifyIngestRequest(input(v, { signature: flipped, nonce: 'other-1' }), deps)).rejects.toMatchObject({
      code: 'auth.invalid_signature',
    });
    await expect(
      verifyIngestRequest(input(v, { body: v.body!.replace('Hello', 'Hellp'), nonce: 'other-2' }), deps),
    ).rejects.toMatchObject({ code: 'auth.invalid_signature' });
  });
});
