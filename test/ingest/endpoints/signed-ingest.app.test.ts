import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, fakeClock, seedWebsite, type TestApp } from '../../helpers/app.js';
import { runNodectlInProcess } from '../../helpers/cli-in-process.js';
import { createConnector } from '../../../src/control/connectors/connectors.js';
import { readMasterKey } from '../../../src/platform/storage/data-dir.js';
import { pageItem, signedInject, type Connector } from './support.js';
import { acceptedRows, type AcceptedRow } from '../../helpers/accepted-rows.js';

// In process through inject(), on a fake clock; the connector lifecycle runs the CLI beside it, in process too.
const clock = fakeClock();
let t: TestApp;
let websiteId: string;
let connector: Connector;

/** What the website holds of each accepted item: its raw_items row, or its inbox row (state 'inbox'). */
function rawRows(): AcceptedRow[] {
  return acceptedRows(t.services.graphs, websiteId);
}
function countRaw(prefix: string): number {
  return rawRows().filter((r) => r.item_id.startsWith(prefix)).length;
}
const sign = (token: string, path: string, o: Partial<Parameters<typeof signedInject>[2]> & { body?: unknown }) =>
  signedInject(t.app, path, { token, websiteId, nowMs: clock.now(), ...o });
const post = (path: string, o: Partial<Parameters<typeof signedInject>[2]> & { body?: unknown }) =>
  sign(connector.token, path, o);
/** A second connector of the website, made by the library (the CLI's create is covered by test/ingest/endpoints/push.process.test.ts). */
const newConnector = (): Connector =>
  createConnector(t.services.controlDb, readMasterKey(t.services.layout), {
    websiteId,
    connectorType: 'test',
    sourceTypes: ['page', 'post'],
  });
const batch = (items: unknown[], extra: Record<string, unknown> = {}) => ({ website_id: websiteId, items, ...extra });

beforeAll(async () => {
  t = await buildTestApp({ clock });
  const seeded = await seedWebsite(t.services);
  websiteId = seeded.websiteId;
  connector = { id: seeded.connectorId, token: seeded.connectorToken };
}, 60_000);
afterAll(async () => {
  await t?.close();
});

describe('signed ingest (in process)', () => {
  it('accepts a batch, stores the rows durably in the inbox and enqueues one content.ingest job', async () => {
    const items = [pageItem('ok:1'), pageItem('ok:2')];
    const res = await post('/v1/ingest/batch', { body: batch(items), siteDomain: 'example.com' });
    expect(res.status).toBe(200);
    expect(res.json.ok).toBe(true);
    const data = res.json.data;
    expect(data).toMatchObject({ website_id: websiteId, received: 2, accepted: 2, skipped: 0, errored: 0 });
    expect(data.results).toHaveLength(2);
    expect(data.results[0].raw_content_id).toMatch(/^raw_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(data.results[0].job_id).toMatch(/^job_/);
    expect(data.results[1].job_id).toBe(data.results[0].job_id);
    expect(
      rawRows()
        .filter((r) => r.item_id.startsWith('ok:'))
        .map((r) => r.state),
    ).toEqual(['inbox', 'inbox']);
    expect(t.services.jobs.get(data.results[0].job_id)?.kind).toBe('content.ingest');
  });

  it('skips an unchanged re-push and accepts a changed checksum as an update', async () => {
    const again = await post('/v1/ingest/batch', { body: batch([pageItem('ok:1'), pageItem('ok:2', 'changed text')]) });
    expect(again.json.data).toMatchObject({ received: 2, accepted: 1, skipped: 1, errored: 0 });
    expect(again.json.data.results[0]).toMatchObject({ id: 'ok:1', status: 'skipped', reason: 'unchanged_checksum' });
    expect(again.json.data.results[1]).toMatchObject({ id: 'ok:2', status: 'accepted' });
    expect(rawRows().find((r) => r.item_id === 'ok:2')?.checksum).toBe(pageItem('ok:2', 'changed text').checksum);
  });

  it('/v1/ingest/item returns the per-item result', async () => {
    const res = await post('/v1/ingest/item', { body: { website_id: websiteId, item: pageItem('single:1') } });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ id: 'single:1', status: 'accepted' });
  });

  it('rejects a tampered body with 401 auth.invalid_signature and stores nothing', async () => {
    const signed = JSON.stringify(batch([pageItem('tamper:1')]));
    const res = await post('/v1/ingest/batch', {
      raw: signed,
      sendRaw: signed.replace('tamper:1', 'tamper:2'),
      tamper: (h) => void h,
    });
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe('auth.invalid_signature');
    expect(countRaw('tamper:')).toBe(0);
  });

  it('rejects a missing X-Signature and a wrong X-Body-Sha256 with auth.invalid_signature', async () => {
    const a = await post('/v1/ingest/batch', {
      body: batch([pageItem('nosig:1')]),
      tamper: (h) => void delete h['x-signature'],
    });
    expect(a.status).toBe(401);
    expect(a.json.error.code).toBe('auth.invalid_signature');
    expect(a.json.error.message).toMatch(/X-Signature/);
    const b = await post('/v1/ingest/batch', {
      body: batch([pageItem('nosig:1')]),
      tamper: (h) => void (h['x-body-sha256'] = '0'.repeat(64)),
    });
    expect(b.json.error.code).toBe('auth.invalid_signature');
    expect(countRaw('nosig:')).toBe(0);
  });

  it('rejects another website_id with 403 auth.scope_violation', async () => {
    const other = 'web_01JD2Q7Z3K4M5N6P7Q8R9S0T1V';
    const res = await post('/v1/ingest/batch', {
      websiteId: other,
      body: { website_id: other, items: [pageItem('scope:1')] },
    });
    expect(res.status).toBe(403);
    expect(res.json.error.code).toBe('auth.scope_violation');
  });

  it('rejects an item type outside the connector scope with 403 auth.scope_violation', async () => {
    const item = { ...pageItem('prod:1'), type: 'product' };
    const res = await post('/v1/ingest/batch', { body: batch([pageItem('scope:2'), item]) });
    expect(res.status).toBe(403);
    expect(res.json.error.code).toBe('auth.scope_violation');
    expect(res.json.error.message).toMatch(/product/);
    expect(countRaw('scope:')).toBe(0);
  });

  it('rejects a clock 301 s behind with auth.timestamp_skew and accepts the 300 s edge', async () => {
    const late = await post('/v1/ingest/batch', { body: batch([pageItem('skew:1')]), timestampOffset: -301 });
    expect(late.status).toBe(401);
    expect(late.json.error.code).toBe('auth.timestamp_skew');
    const edge = await post('/v1/ingest/batch', { body: batch([pageItem('skew:2')]), timestampOffset: 300 });
    expect(edge.status).toBe(200);
    expect(countRaw('skew:')).toBe(1);
  });

  it('rejects a replayed nonce with 401 auth.nonce_replay', async () => {
    const first = await post('/v1/ingest/batch', { body: batch([pageItem('nonce:1')]), nonce: 'fixed-nonce-1' });
    expect(first.status).toBe(200);
    const replay = await post('/v1/ingest/batch', { body: batch([pageItem('nonce:2')]), nonce: 'fixed-nonce-1' });
    expect(replay.status).toBe(401);
    expect(replay.json.error.code).toBe('auth.nonce_replay');
    expect(countRaw('nonce:')).toBe(1);
  });

  it('413 ingest.batch_too_large for 501 items, nothing stored', async () => {
    const items = Array.from({ length: 501 }, (_, i) => pageItem(`big:${i}`));
    const res = await post('/v1/ingest/batch', { body: batch(items) });
    expect(res.status).toBe(413);
    expect(res.json.error.code).toBe('ingest.batch_too_large');
    expect(countRaw('big:')).toBe(0);
  });

  it('413 request.body_too_large for a 50 MB body', async () => {
    const raw = JSON.stringify(batch([pageItem('huge:1', 'x'.repeat(50 * 1024 * 1024))]));
    const res = await post('/v1/ingest/batch', { raw }).catch((error: Error) => ({
      status: -1,
      json: { error: { code: error.message } },
      headers: {},
    }));
    expect(res.status).toBe(413);
    expect(res.json.error.code).toBe('request.body_too_large');
    expect(countRaw('huge:')).toBe(0);
  });

  it('422 validation.failed with details.fields for invalid JSON', async () => {
    const res = await post('/v1/ingest/batch', { raw: '{"website_id": "x", items: [' });
    expect(res.status).toBe(422);
    expect(res.json.error.code).toBe('validation.failed');
    expect(res.json.error.details.fields[0].path).toBe('(body)');
  });

  it('per-item errors: unknown field, url on another host, bad checksum, 257-char id; others continue', async () => {
    const items = [
      { ...pageItem('bad:unknown'), colour: 'red' },
      pageItem('bad:host', 'x', { url: 'https://evil.example.org/page' }),
      { ...pageItem('bad:checksum'), checksum: 'sha256:ABC' },
      pageItem('x'.repeat(257)),
      pageItem('bad:good'),
    ];
    const res = await post('/v1/ingest/batch', { body: batch(items) });
    expect(res.status).toBe(200);
    const d = res.json.data;
    expect(d).toMatchObject({ received: 5, accepted: 1, skipped: 0, errored: 4 });
    expect(d.received).toBe(d.accepted + d.skipped + d.errored);
    expect(d.results).toHaveLength(5);
    expect(d.results.slice(0, 4).map((r: any) => r.status)).toEqual(['error', 'error', 'error', 'error']);
    expect(d.results[0].error).toMatchObject({ code: 'validation.failed' });
    expect(d.results[0].error.message).toMatch(/unknown field colour/);
    expect(d.results[1].error.message).toMatch(/host evil\.example\.org is not example\.com/);
    expect(d.results[2].error.message).toMatch(/checksum: must be "sha256:"/);
    expect(d.results[3].error.message).toMatch(/id: must be at most 256/);
    expect(countRaw('bad:')).toBe(1);
  });

  it('422 validation.failed for an empty items array', async () => {
    const res = await post('/v1/ingest/batch', { body: batch([]) });
    expect(res.status).toBe(422);
    expect(res.json.error.code).toBe('validation.failed');
    expect(res.json.error.details.fields[0].path).toBe('items');
  });

  it('partial=false rejects the whole batch on one invalid item and stores nothing', async () => {
    const res = await post('/v1/ingest/batch', {
      body: batch([pageItem('pf:1'), { ...pageItem('pf:2'), checksum: 'nope' }], { partial: false }),
    });
    expect(res.status).toBe(422);
    expect(res.json.error.code).toBe('ingest.batch_rejected');
    expect(res.json.error.details.items).toEqual([
      { index: 1, id: 'pf:2', code: 'validation.failed', message: expect.stringMatching(/checksum/) },
    ]);
    expect(countRaw('pf:')).toBe(0);
  });

  it('the documented body and headers are checked only after the signature (validatedInHandler): unsigned is 401 whatever the body, signed is 422 naming the field', async () => {
    const broken = { website_id: websiteId, items: 'not a list', colour: 'red' };
    const unsigned = await post('/v1/ingest/batch', { body: broken, tamper: (h) => void delete h['x-signature'] });
    expect(`${unsigned.status} ${unsigned.json.error.code}`).toBe('401 auth.invalid_signature');
    const badTimestamp = await post('/v1/ingest/batch', {
      body: batch([pageItem('order:1')]),
      tamper: (h) => void (h['x-timestamp'] = 'soon'),
    });
    expect(`${badTimestamp.status} ${badTimestamp.json.error.code}`).toBe('401 auth.invalid_signature');
    const signed = await post('/v1/ingest/batch', { body: broken });
    expect(`${signed.status} ${signed.json.error.code}`).toBe('422 validation.failed');
    expect(signed.json.error.message).toBe('The batch is not valid; see details.fields.');
    expect(signed.json.error.details.fields.map((f: { path: string }) => f.path).sort()).toEqual(['(root)', 'items']);
    expect(countRaw('order:')).toBe(0);
  });

  it('the OpenAPI document lists the signing headers of every ingest route, the five signing ones required', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json() as {
      paths: Record<string, { post: { parameters: Array<{ in: string; name: string; required: boolean }> } }>;
    };
    for (const path of [
      '/v1/ingest/batch',
      '/v1/ingest/item',
      '/v1/ingest/delete',
      '/v1/ingest/heartbeat',
      '/v1/ingest/schema',
    ]) {
      const headers = document.paths[path]!.post.parameters.filter((p) => p.in === 'header').map(
        (p) => `${p.name}${p.required ? '' : '?'}`,
      );
      expect(headers, path).toEqual([
        'X-Signature',
        'X-Timestamp',
        'X-Nonce',
        'X-Body-Sha256',
        'Idempotency-Key',
        'X-Site-Domain?',
        'X-Connector-Type?',
        'X-Connector-Version?',
      ]);
    }
  });

  it('400 validation.missing_idempotency_key without Idempotency-Key', async () => {
    const res = await post('/v1/ingest/batch', { body: batch([pageItem('idem:0')]), idempotencyKey: null });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('validation.missing_idempotency_key');
  });

  it('replays the cached envelope for the same key and body; 409 ingest.duplicate for another body', async () => {
    const body = batch([pageItem('idem:1')]);
    const first = await post('/v1/ingest/batch', { body, idempotencyKey: 'key-1' });
    expect(first.status).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await post('/v1/ingest/batch', { body, idempotencyKey: 'key-1' });
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    // The cached envelope, under the replay's own request id (header and meta.requestId agree).
    expect({ ...again.json, meta: undefined }).toEqual({ ...first.json, meta: undefined });
    expect(again.json.meta.requestId).toBe(again.headers['x-request-id']);
    expect(again.json.meta.requestId).not.toBe(first.json.meta.requestId);
    const other = await post('/v1/ingest/batch', { body: batch([pageItem('idem:2')]), idempotencyKey: 'key-1' });
    expect(other.status).toBe(409);
    expect(other.json.error.code).toBe('ingest.duplicate');
    expect(countRaw('idem:')).toBe(1);
  });

  it('delete tombstones known ids, reports unknown ones, and a tombstoned id is skipped on re-ingest', async () => {
    await post('/v1/ingest/batch', { body: batch([pageItem('del:1')]) });
    const res = await post('/v1/ingest/delete', { body: { website_id: websiteId, ids: ['del:1', 'del:missing'] } });
    expect(res.status).toBe(200);
    expect(res.json.data.tombstoned).toEqual(['del:1']);
    expect(res.json.data.not_found).toEqual(['del:missing']);
    expect(res.json.data.republish_job_id).toMatch(/^job_/);
    expect(rawRows().find((r) => r.item_id === 'del:1')).toMatchObject({ state: 'tombstoned', body: null });
    const again = await post('/v1/ingest/batch', { body: batch([pageItem('del:1', 'new text')]) });
    expect(again.json.data.results[0]).toMatchObject({ status: 'skipped', reason: 'tombstoned' });
  });

  it('gdpr_erasure removes the content, url and checksum of the item', async () => {
    await post('/v1/ingest/batch', { body: batch([pageItem('gdpr:1', 'personal data')]) });
    const res = await post('/v1/ingest/delete', {
      body: { website_id: websiteId, ids: ['gdpr:1'], reason: 'gdpr_erasure' },
    });
    expect(res.json.data.tombstoned).toEqual(['gdpr:1']);
    expect(rawRows().find((r) => r.item_id === 'gdpr:1')).toMatchObject({
      state: 'tombstoned',
      body: null,
      checksum: '',
    });
  });

  it('heartbeat answers next_action and server time and records the connector state', async () => {
    const res = await post('/v1/ingest/heartbeat', {
      body: {
        website_id: websiteId,
        cursor: 'c1',
        connector_state: 'syncing',
        stats: { items_seen: 3, items_pending: 0, last_error: null },
      },
    });
    expect(res.status).toBe(200);
    expect(res.json.data.next_action).toBe('continue');
    expect(res.json.data.server_time_unix).toBe(Math.floor(clock.now() / 1000));
    expect(res.json.data.server_time).toBe(new Date(clock.now()).toISOString());
    const list = await runNodectlInProcess(['--json', 'admin', 'connector', 'list', '--website', websiteId], {
      dataDir: t.dataDir,
    });
    const row = list.json<any[]>().find((c) => c.id === connector.id);
    expect(row.connectorState).toBe('syncing');
    expect(row.lastHeartbeatAt).not.toBeNull();
    expect(JSON.stringify(list.json())).not.toContain(connector.token.split('.')[1]);
  });

  it('schema: stores mappings, rejects llm_inferred (422) and a conflicting mapping (409), then heartbeat says backfill', async () => {
    clock.advance(1_000); // the mapping is added after the previous heartbeat
    const ok = await post('/v1/ingest/schema', {
      body: {
        website_id: websiteId,
        mappings: [
          { source_path: 'meta.sku', target: 'attribute', attribute_name: 'sku', provenance_method: 'cms_field' },
        ],
      },
    });
    expect(ok.status).toBe(200);
    expect(ok.json.data).toMatchObject({
      website_id: websiteId,
      mappings: [
        { source_path: 'meta.sku', target: 'attribute', attribute_name: 'sku', provenance_method: 'cms_field' },
      ],
    });
    expect(ok.json.data.mappings_version).toMatch(/^mv_[0-9a-f]{16}$/);
    const llm = await post('/v1/ingest/schema', {
      body: {
        website_id: websiteId,
        mappings: [{ source_path: 'x', target: 'title', provenance_method: 'llm_inferred' }],
      },
    });
    expect(llm.status).toBe(422);
    expect(llm.json.error.code).toBe('validation.failed');
    const conflict = await post('/v1/ingest/schema', {
      body: {
        website_id: websiteId,
        mappings: [{ source_path: 'meta.sku', target: 'title', provenance_method: 'cms_field' }],
      },
    });
    expect(conflict.status).toBe(409);
    expect(conflict.json.error.code).toBe('ingest.schema_conflict');
    const hb = await post('/v1/ingest/heartbeat', { body: { website_id: websiteId, connector_state: 'idle' } });
    expect(hb.json.data.next_action).toBe('backfill');
  });
});

describe('connector lifecycle: the CLI changes a connector, the app sees it at once', () => {
  it('a rotated token is rejected with auth.token_revoked (a stale token version), the new one works', async () => {
    const c = newConnector();
    const rotated = await runNodectlInProcess(['--json', 'admin', 'connector', 'rotate', c.id], { dataDir: t.dataDir });
    expect(rotated.exitCode).toBe(0);
    const fresh = rotated.json<{ token: string; tokenVersion: number }>();
    expect(fresh.tokenVersion).toBe(2);
    const old = await sign(c.token, '/v1/ingest/batch', { body: batch([pageItem('rot:1')]) });
    expect(old.status).toBe(401);
    expect(old.json.error.code).toBe('auth.token_revoked');
    expect(old.json.error.message).toMatch(/replaced by a rotation/);
    const ok = await sign(fresh.token, '/v1/ingest/batch', { body: batch([pageItem('rot:2')]) });
    expect(ok.status).toBe(200);
  });

  it('a suspended connector is rejected until resumed; a deleted one for good', async () => {
    const c = newConnector();
    expect((await runNodectlInProcess(['admin', 'connector', 'suspend', c.id], { dataDir: t.dataDir })).exitCode).toBe(
      0,
    );
    const suspended = await sign(c.token, '/v1/ingest/heartbeat', {
      body: { website_id: websiteId, connector_state: 'idle' },
    });
    expect(suspended.status).toBe(401);
    expect(suspended.json.error.code).toBe('auth.token_revoked');
    expect(suspended.json.error.message).toMatch(/suspended/);
    expect((await runNodectlInProcess(['admin', 'connector', 'resume', c.id], { dataDir: t.dataDir })).exitCode).toBe(
      0,
    );
    const resumed = await sign(c.token, '/v1/ingest/heartbeat', {
      body: { website_id: websiteId, connector_state: 'idle' },
    });
    expect(resumed.status).toBe(200);
    expect((await runNodectlInProcess(['admin', 'connector', 'delete', c.id], { dataDir: t.dataDir })).exitCode).toBe(
      0,
    );
    const deleted = await sign(c.token, '/v1/ingest/heartbeat', {
      body: { website_id: websiteId, connector_state: 'idle' },
    });
    expect(deleted.json.error.code).toBe('auth.token_revoked');
  });

  it('an unknown connector id gets the same auth.token_revoked', async () => {
    const res = await sign('conn_01JD2Q7Z3K4M5N6P7Q8R9S0T1V.AAAAAAAA', '/v1/ingest/heartbeat', {
      body: { website_id: websiteId, connector_state: 'idle' },
    });
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe('auth.token_revoked');
  });
});
