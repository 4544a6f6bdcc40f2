import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createApiClient,
  isApiError,
  type ApiError,
  type ApiClientOptions,
  type ApiRetry,
} from '../../../src/sdk/api/index.js';
import { errorInfo, type ErrorCode } from '../../../src/platform/errors/registry.js';

/**
 * The typed client's retries against a real loopback HTTP server that answers from a script:
 * each request takes the next answer of its method and path. The waits are recorded by an
 * injected sleep that returns at once, so the test does not wait for the backoff.
 */
type Answer =
  { error: ErrorCode; retryAfter?: string } | { data: unknown } | { plain: number; retryAfter?: string } | 'hang up';
let server: Server;
let url: string;
const script = new Map<string, Answer[]>();
const seen: string[] = [];

function envelopeError(res: ServerResponse, code: ErrorCode, retryAfter: string | undefined): void {
  const { status, retryable } = errorInfo(code);
  res.writeHead(status, {
    'content-type': 'application/json',
    'x-request-id': `req${seen.length}`,
    ...(retryAfter !== undefined ? { 'retry-after': retryAfter } : {}),
  });
  res.end(
    JSON.stringify({
      ok: false,
      error: { code, message: `scripted ${code}`, details: {}, retryable },
      meta: { requestId: `req${seen.length}` },
    }),
  );
}

function answer(req: IncomingMessage, res: ServerResponse): void {
  const key = `${req.method} ${req.url}`;
  seen.push(key);
  const next = script.get(key)?.shift() ?? { data: { answered: key } };
  if (next === 'hang up') return void req.socket.destroy();
  if ('error' in next) return envelopeError(res, next.error, next.retryAfter);
  // A proxy's own page: HTML, no envelope.
  if ('plain' in next)
    return void res
      .writeHead(next.plain, {
        'content-type': 'text/html',
        ...(next.retryAfter !== undefined ? { 'retry-after': next.retryAfter } : {}),
      })
      .end(`<html><body>${next.plain}</body></html>`);
  res
    .writeHead(200, { 'content-type': 'application/json' })
    .end(JSON.stringify({ ok: true, data: next.data, meta: { requestId: 'ok' } }));
}

beforeAll(async () => {
  server = createServer((req, res) => req.resume().on('end', () => answer(req, res)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));
afterEach(() => {
  script.clear();
  seen.length = 0;
});

/** A client of the scripted server that records each retry instead of waiting. */
function clientOf(options: Partial<ApiClientOptions> = {}, target = url) {
  const retries: ApiRetry[] = [];
  const waits: number[] = [];
  const api = createApiClient({
    url: target,
    credential: { apiKey: 'nk_live_x' },
    onRetry: (r) => retries.push(r),
    sleep: async (ms) => void waits.push(ms),
    ...options,
  });
  return { api, retries, waits };
}

async function failureOf(call: Promise<unknown>): Promise<ApiError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isApiError(error), String(error)).toBe(true);
  return error as ApiError;
}

const WEBSITE = '/v1/websites/web_1';
const PUBLISH = '/v1/websites/web_1/publish';

describe('typed client retries', () => {
  it('a 429 is retried after its Retry-After, on a POST too: the daemon refused it before doing anything', async () => {
    script.set(`POST ${PUBLISH}`, [
      { error: 'quota.rate_limited', retryAfter: '0' },
      { error: 'quota.rate_limited', retryAfter: '1' },
      { data: { versionUlid: 'v1' } },
    ]);
    const { api, retries, waits } = clientOf();
    expect(await api.publish.publish('web_1')).toEqual({ versionUlid: 'v1' });
    expect(seen).toEqual([`POST ${PUBLISH}`, `POST ${PUBLISH}`, `POST ${PUBLISH}`]);
    expect(waits).toEqual([0, 1000]);
    expect(retries.map((r) => [r.retry, r.delayMs, r.error.code, r.error.status])).toEqual([
      [1, 0, 'quota.rate_limited', 429],
      [2, 1000, 'quota.rate_limited', 429],
    ]);
  });

  it("a proxy's own 502, 503 or 504 page is retried on a GET (after its Retry-After when it sends one), not on a POST", async () => {
    script.set(`GET ${WEBSITE}`, [{ plain: 502 }, { plain: 504, retryAfter: '2' }, { data: { id: 'web_1' } }]);
    const reader = clientOf();
    expect(await reader.api.websites.get('web_1')).toEqual({ id: 'web_1' });
    expect(reader.retries.map((r) => [r.error.code, r.error.status, r.error.retryable])).toEqual([
      ['response.invalid', 502, true],
      ['response.invalid', 504, true],
    ]);
    expect(reader.waits[1]).toBe(2000);
    script.set(`POST ${PUBLISH}`, [{ plain: 503 }]);
    const writer = clientOf();
    const error = await failureOf(writer.api.publish.publish('web_1'));
    expect(error).toMatchObject({ code: 'response.invalid', status: 503, retryable: true, attempts: 1 });
    expect(error.message).toContain('a proxy in front of the daemon');
    expect(writer.retries).toEqual([]);
  });

  it("a proxy's own 429 page is retried on a POST too; any other page that is not the envelope is not retried", async () => {
    script.set(`POST ${PUBLISH}`, [{ plain: 429, retryAfter: '0' }, { data: { versionUlid: 'v2' } }]);
    expect(await clientOf().api.publish.publish('web_1')).toEqual({ versionUlid: 'v2' });
    script.set(`GET ${WEBSITE}`, [{ plain: 500 }, { data: { id: 'web_1' } }]);
    const { api, retries } = clientOf();
    expect(await failureOf(api.websites.get('web_1'))).toMatchObject({
      code: 'response.invalid',
      status: 500,
      retryable: false,
      attempts: 1,
    });
    expect(retries).toEqual([]);
  });

  it('the default sleep waits for real (Retry-After 0)', async () => {
    script.set(`GET ${WEBSITE}`, [{ error: 'quota.rate_limited', retryAfter: '0' }, { data: { id: 'web_1' } }]);
    expect(await createApiClient({ url }).websites.get('web_1')).toEqual({ id: 'web_1' });
    expect(seen).toHaveLength(2);
  });

  it('a retryable 503 is retried on a GET, not on a POST (it may have reached a handler)', async () => {
    script.set(`GET ${WEBSITE}`, [{ error: 'service.unavailable', retryAfter: '0' }, { data: { id: 'web_1' } }]);
    const reader = clientOf();
    expect(await reader.api.websites.get('web_1')).toEqual({ id: 'web_1' });
    expect(seen).toEqual([`GET ${WEBSITE}`, `GET ${WEBSITE}`]);
    expect(reader.waits).toEqual([0]);

    seen.length = 0;
    script.set(`POST ${PUBLISH}`, [{ error: 'service.unavailable', retryAfter: '0' }, { data: { versionUlid: 'v1' } }]);
    const writer = clientOf();
    const refused = await failureOf(writer.api.publish.publish('web_1'));
    expect(refused).toMatchObject({
      code: 'service.unavailable',
      status: 503,
      retryable: true,
      retryAfterSeconds: 0,
      attempts: 1,
    });
    expect(seen).toEqual([`POST ${PUBLISH}`]);
    expect(writer.waits).toEqual([]);
  });

  it('a retryable 503 without Retry-After waits a capped exponential backoff with jitter', async () => {
    script.set(`GET ${WEBSITE}`, [
      { error: 'service.unavailable' },
      { error: 'service.unavailable' },
      { error: 'service.unavailable' },
      { error: 'service.unavailable' },
    ]);
    const { api, waits } = clientOf({ retries: 3, retryBaseMs: 400, maxRetryDelayMs: 1000 });
    expect(await failureOf(api.websites.get('web_1'))).toMatchObject({ code: 'service.unavailable', attempts: 4 });
    expect(waits).toHaveLength(3);
    expect(waits[0]).toBeGreaterThanOrEqual(200);
    expect(waits[0]).toBeLessThanOrEqual(400);
    expect(waits[1]).toBeGreaterThanOrEqual(400);
    expect(waits[1]).toBeLessThanOrEqual(800);
    // 400 * 2^2 = 1600 is capped at 1000.
    expect(waits[2]).toBeGreaterThanOrEqual(500);
    expect(waits[2]).toBeLessThanOrEqual(1000);
  });

  it('a 503 whose code is not retryable (billing.unconfigured) is never retried, not even on a GET', async () => {
    script.set(`GET ${WEBSITE}`, [{ error: 'billing.unconfigured', retryAfter: '0' }, { data: { id: 'web_1' } }]);
    const { api, waits } = clientOf();
    expect(await failureOf(api.websites.get('web_1'))).toMatchObject({
      code: 'billing.unconfigured',
      status: 503,
      retryable: false,
      attempts: 1,
    });
    expect(seen).toEqual([`GET ${WEBSITE}`]);
    expect(waits).toEqual([]);
  });

  it('a Retry-After longer than maxRetryDelayMs fails the call at once, saying when to come back', async () => {
    script.set(`GET ${WEBSITE}`, [{ error: 'quota.rate_limited', retryAfter: '120' }, { data: { id: 'web_1' } }]);
    const { api, waits } = clientOf({ maxRetryDelayMs: 60_000 });
    expect(await failureOf(api.websites.get('web_1'))).toMatchObject({
      code: 'quota.rate_limited',
      retryAfterSeconds: 120,
      attempts: 1,
    });
    expect(waits).toEqual([]);
  });

  it('a connection refused is retried with backoff, for any method, then surfaces as network.error', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const target = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const { api, retries, waits } = clientOf({}, target);
    const refused = await failureOf(api.publish.publish('web_1'));
    expect(refused).toMatchObject({
      code: 'network.error',
      status: 0,
      attempts: 3,
      message: `cannot reach ${target}: ECONNREFUSED`,
    });
    expect(retries.map((r) => r.error.code)).toEqual(['network.error', 'network.error']);
    expect(waits[0]).toBeGreaterThanOrEqual(250);
    expect(waits[0]).toBeLessThanOrEqual(500);
    expect(waits[1]).toBeGreaterThanOrEqual(500);
    expect(waits[1]).toBeLessThanOrEqual(1000);
  });

  it('a connection closed after the request was sent is retried on a GET, not on a POST', async () => {
    script.set(`GET ${WEBSITE}`, ['hang up', { data: { id: 'web_1' } }]);
    expect(await clientOf().api.websites.get('web_1')).toEqual({ id: 'web_1' });
    expect(seen).toEqual([`GET ${WEBSITE}`, `GET ${WEBSITE}`]);

    seen.length = 0;
    script.set(`POST ${PUBLISH}`, ['hang up', { data: { versionUlid: 'v1' } }]);
    expect(await failureOf(clientOf().api.publish.publish('web_1'))).toMatchObject({
      code: 'network.error',
      attempts: 1,
    });
    expect(seen).toEqual([`POST ${PUBLISH}`]);
  });

  it('retries: 0 turns retrying off: a 429 and a refused connection fail at the first attempt', async () => {
    script.set(`GET ${WEBSITE}`, [{ error: 'quota.rate_limited', retryAfter: '0' }, { data: { id: 'web_1' } }]);
    const { api, waits } = clientOf({ retries: 0 });
    expect(await failureOf(api.websites.get('web_1'))).toMatchObject({ code: 'quota.rate_limited', attempts: 1 });
    expect(seen).toEqual([`GET ${WEBSITE}`]);
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const target = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    expect(await failureOf(clientOf({ retries: 0 }, target).api.websites.get('web_1'))).toMatchObject({
      code: 'network.error',
      attempts: 1,
    });
    expect(waits).toEqual([]);
  });

  it("stops after `retries` retries and throws the last attempt's error", async () => {
    script.set(`GET ${WEBSITE}`, [
      { error: 'quota.rate_limited', retryAfter: '0' },
      { error: 'quota.rate_limited', retryAfter: '0' },
      { error: 'service.unavailable', retryAfter: '0' },
      { data: { id: 'web_1' } },
    ]);
    const error = await failureOf(clientOf({ retries: 2 }).api.websites.get('web_1'));
    expect(error).toMatchObject({ code: 'service.unavailable', attempts: 3, requestId: 'req3' });
    expect(seen).toHaveLength(3);
  });

  it('a retry count or delay that is not a whole number from 0 is refused when the client is made', () => {
    expect(() => createApiClient({ url, retries: -1 })).toThrow(
      new RangeError('createApiClient: retries must be a whole number from 0, got -1'),
    );
    expect(() => createApiClient({ url, retries: 1.5 })).toThrow(RangeError);
    expect(() => createApiClient({ url, maxRetryDelayMs: Number.NaN })).toThrow(/maxRetryDelayMs/);
  });
});
