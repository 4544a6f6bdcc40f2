import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeItemChecksum } from '../../src/platform/contract/checksum.js';
import { acceptedRows } from '../helpers/accepted-rows.js';
import {
  buildTestApp,
  injectJson,
  injectSigned,
  seedWebsite,
  type InjectAnswer,
  type SeededWebsite,
  type TestApp,
} from '../helpers/app.js';

let t: TestApp;
let site: SeededWebsite;

beforeAll(async () => {
  t = await buildTestApp();
  site = await seedWebsite(t.services);
});
afterAll(async () => {
  await t?.close();
});

/** Every answer: the envelope, and the X-Request-Id header equal to meta.requestId. */
function expectEnvelopedError(res: InjectAnswer, status: number, code: string): void {
  expect(res.status, res.body).toBe(status);
  expect(res.json, res.body).toMatchObject({ ok: false, error: { code } });
  expect(typeof res.json.error.message).toBe('string');
  expect(res.headers['x-request-id']).toBeTruthy();
  expect(res.json.meta.requestId).toBe(res.headers['x-request-id']);
}

const page = (id: string, extra: Record<string, unknown> = {}) => {
  const base = { type: 'page', id, url: `https://example.com/${id}`, text: `text of ${id}`, ...extra };
  return { ...base, checksum: computeItemChecksum(base as never) };
};

/**
 * `{"k":{"k":...{"k":1}...}}` nested `depth` levels, built as text:
 * JSON.stringify itself overflows a few thousand levels down.
 */
function nestedObjectText(depth: number): string {
  return '{"k":'.repeat(depth - 1) + '{"k":1}' + '}'.repeat(depth - 1);
}

/** A page item whose `field` (json or attributes) nests `depth` levels, as JSON text. */
function deepItemText(id: string, field: 'json' | 'attributes', depth: number): string {
  const head = JSON.stringify({
    type: 'page',
    id,
    url: `https://example.com/${id}`,
    text: 'deep',
    checksum: `sha256:${'0'.repeat(64)}`,
  });
  return `${head.slice(0, -1)},"${field}":${nestedObjectText(depth)}}`;
}

describe('framework errors are in the envelope with one request id (bug: raw Fastify bodies without X-Request-Id)', () => {
  it('a bad percent-encoding in the path is 400 request.malformed', async () => {
    expectEnvelopedError(await injectJson(t.app, { method: 'GET', url: '/%zz' }), 400, 'request.malformed');
    expectEnvelopedError(
      await injectJson(t.app, { method: 'POST', url: '/v1/websites/%E0%A4%A/publish' }),
      400,
      'request.malformed',
    );
  });

  it('a path segment over 256 characters is 414 request.uri_too_long; a 253-character domain is still routed', async () => {
    expectEnvelopedError(
      await injectJson(t.app, { method: 'POST', url: `/v1/websites/${'a'.repeat(257)}/publish` }),
      414,
      'request.uri_too_long',
    );
    const longDomain = await injectJson(t.app, { method: 'GET', url: `/nodes/${'a'.repeat(253)}/llms.txt` });
    expectEnvelopedError(longDomain, 404, 'node.not_found');
  });

  it('malformed JSON and a body shorter than its Content-Length keep the envelope', async () => {
    const malformed = await injectJson(t.app, {
      method: 'POST',
      url: '/v1/waitlist',
      headers: { 'content-type': 'application/json' },
      payload: '{"email":',
    });
    expectEnvelopedError(malformed, 422, 'validation.failed');
    expect(malformed.json.error.details.fields[0].path).toBe('(body)');
    // Fastify's FST_ERR_CTP_INVALID_CONTENT_LENGTH was mapped to 500 internal.error.
    const short = await injectJson(t.app, {
      method: 'POST',
      url: '/v1/waitlist',
      headers: { 'content-type': 'application/json', 'content-length': '100' },
      payload: '{"email":"a@b.co"}',
    });
    expectEnvelopedError(short, 400, 'request.malformed');
    expect(short.json.error.message).toMatch(/Content-Length/);
  });

  it('an idempotent replay answers with its own request id in the header and in meta.requestId (bug: they differed)', async () => {
    const body = { website_id: site.websiteId, item: page('replay-id:1') };
    const first = await injectSigned(t.app, '/v1/ingest/item', {
      token: site.connectorToken,
      websiteId: site.websiteId,
      body,
      idempotencyKey: 'replay-id-key',
    });
    expect(first.status, first.body).toBe(200);
    expect(first.json.meta.requestId).toBe(first.headers['x-request-id']);
    const again = await injectSigned(t.app, '/v1/ingest/item', {
      token: site.connectorToken,
      websiteId: site.websiteId,
      body,
      idempotencyKey: 'replay-id-key',
    });
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json.meta.requestId).toBe(again.headers['x-request-id']);
    expect(again.json.meta.requestId).not.toBe(first.json.meta.requestId);
    expect(again.json.data).toEqual(first.json.data);
  });
});

describe('invalid UTF-8 in a body is 422 validation.failed (bug: silently turned into U+FFFD)', () => {
  const invalid = Buffer.concat([
    Buffer.from('{"email":"caf'),
    Buffer.from([0xc3, 0x28]),
    Buffer.from('@example.com","consent":true}'),
  ]);

  it('on a management route', async () => {
    const res = await injectJson(t.app, {
      method: 'POST',
      url: '/v1/waitlist',
      headers: { 'content-type': 'application/json' },
      payload: invalid,
    });
    expectEnvelopedError(res, 422, 'validation.failed');
    expect(res.json.error.message).toMatch(/not valid UTF-8 \(bad byte at offset 13\)/);
    expect(res.json.error.details.fields).toEqual([
      { path: '(body)', message: 'invalid UTF-8 byte sequence at byte offset 13' },
    ]);
  });

  it('on ingest, where nothing is stored', async () => {
    const raw = Buffer.concat([
      Buffer.from(
        `{"website_id":"${site.websiteId}","item":{"type":"page","id":"utf8:1","url":"https://example.com/utf8","text":"caf`,
      ),
      Buffer.from([0xe9]),
      Buffer.from(`","checksum":"sha256:${'0'.repeat(64)}"}}`),
    ]);
    const res = await injectSigned(t.app, '/v1/ingest/item', {
      token: site.connectorToken,
      websiteId: site.websiteId,
      raw,
    });
    expectEnvelopedError(res, 422, 'validation.failed');
    expect(res.json.error.message).toMatch(/UTF-8/);
    expect(acceptedRows(t.services.graphs, site.websiteId).filter((r) => r.item_id === 'utf8:1')).toEqual([]);
  });

  it('valid multi-byte UTF-8 (accents, CJK, emoji) still passes', async () => {
    const res = await injectSigned(t.app, '/v1/ingest/item', {
      token: site.connectorToken,
      websiteId: site.websiteId,
      body: { website_id: site.websiteId, item: page('utf8:ok', { text: 'café 東京 🚀' }) },
    });
    expect(res.status, res.body).toBe(200);
    expect(res.json.data.status).toBe('accepted');
  });
});

describe('deeply nested json or attributes is a per-item validation.failed (bug: 500 internal.error lost the whole batch)', () => {
  for (const depth of [5_000, 100_000]) {
    it(`json nested ${depth} levels: that item errs naming the 64-level limit, the others are accepted`, async () => {
      const raw = `{"website_id":"${site.websiteId}","items":[${JSON.stringify(page(`deep-ok:${depth}`))},${deepItemText(`deep:${depth}`, 'json', depth)},${deepItemText(`deep-attr:${depth}`, 'attributes', depth)}]}`;
      const res = await injectSigned(t.app, '/v1/ingest/batch', {
        token: site.connectorToken,
        websiteId: site.websiteId,
        raw,
      });
      expect(res.status, res.body.slice(0, 500)).toBe(200);
      expect(res.json.data).toMatchObject({ received: 3, accepted: 1, errored: 2 });
      const [ok, deepJson, deepAttributes] = res.json.data.results;
      expect(ok).toMatchObject({ id: `deep-ok:${depth}`, status: 'accepted' });
      expect(deepJson).toMatchObject({ id: `deep:${depth}`, status: 'error', error: { code: 'validation.failed' } });
      expect(deepJson.error.message).toMatch(/^json: must nest at most 64 levels/);
      expect(deepAttributes.error.message).toMatch(/^attributes: must nest at most 64 levels/);
    });
  }

  it('with partial false the batch is rejected whole (422 ingest.batch_rejected), nothing stored', async () => {
    const raw = `{"website_id":"${site.websiteId}","partial":false,"items":[${JSON.stringify(page('deep-strict:ok'))},${deepItemText('deep-strict:bad', 'json', 5_000)}]}`;
    const res = await injectSigned(t.app, '/v1/ingest/batch', {
      token: site.connectorToken,
      websiteId: site.websiteId,
      raw,
    });
    expectEnvelopedError(res, 422, 'ingest.batch_rejected');
    expect(res.json.error.details.items).toEqual([
      expect.objectContaining({ index: 1, id: 'deep-strict:bad', code: 'validation.failed' }),
    ]);
    expect(acceptedRows(t.services.graphs, site.websiteId).filter((r) => r.item_id.startsWith('deep-strict:'))).toEqual(
      [],
    );
  });

  it('exactly 64 levels is accepted, 65 is not', async () => {
    const item = (id: string, depth: number) => {
      const json = JSON.parse(nestedObjectText(depth));
      return page(id, { json });
    };
    const res = await injectSigned(t.app, '/v1/ingest/batch', {
      token: site.connectorToken,
      websiteId: site.websiteId,
      body: { website_id: site.websiteId, items: [item('depth:64', 64), item('depth:65', 65)] },
    });
    expect(res.status, res.body).toBe(200);
    expect(res.json.data.results.map((r: { status: string }) => r.status)).toEqual(['accepted', 'error']);
  });
});

describe('the auth scheme of management routes is case-insensitive (bug: only "Bearer " was accepted)', () => {
  for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR']) {
    it(`"${scheme} <key>" authenticates`, async () => {
      // Past authentication, an unknown website is 404; a refused credential would be 401.
      const res = await injectJson(t.app, {
        method: 'POST',
        url: '/v1/websites/web_unknown/publish',
        headers: { authorization: `${scheme} ${site.apiKey}` },
      });
      expectEnvelopedError(res, 404, 'website.not_found');
    });
  }

  it('another scheme or a missing key is still 401', async () => {
    for (const authorization of [`Basic ${site.apiKey}`, 'Bearer', `Bearer${site.apiKey}`]) {
      const res = await injectJson(t.app, {
        method: 'POST',
        url: '/v1/websites/web_unknown/publish',
        headers: { authorization },
      });
      expectEnvelopedError(res, 401, 'auth.unauthenticated');
    }
  });
});

describe('an item url longer than a node record can hold is refused at ingest (bug: accepted, then its item failed in extraction)', () => {
  it('a url of 4,000 characters that percent-encodes past 4,096 is a per-item validation.failed; one that fits is accepted', async () => {
    const fits = `https://example.com/${'a'.repeat(4_000)}`;
    const growsPastLimit = `https://example.com/${'é'.repeat(2_000)}`; // 2,020 characters, 12,020 once encoded
    const res = await injectSigned(t.app, '/v1/ingest/batch', {
      token: site.connectorToken,
      websiteId: site.websiteId,
      body: {
        website_id: site.websiteId,
        items: [page('url:fits', { url: fits }), page('url:long', { url: growsPastLimit })],
      },
    });
    expect(res.status, res.body.slice(0, 500)).toBe(200);
    const [ok, long] = res.json.data.results;
    expect(ok).toMatchObject({ id: 'url:fits', status: 'accepted' });
    expect(long).toMatchObject({ id: 'url:long', status: 'error', error: { code: 'validation.failed' } });
    expect(long.error.message).toMatch(/^url: is 12020 characters once percent-encoded; the limit is 4096/);
  });
});
