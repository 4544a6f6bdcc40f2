import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import {
  IngestClient,
  IngestError,
  isRetryableStatus,
  retryDelayMs,
  DEFAULT_RETRY,
  parseRetryAfter,
} from '../../../src/sdk/client/index.js';
import { computeItemChecksum } from '../../../src/platform/contract/checksum.js';

interface Seen {
  headers: IncomingMessage['headers'];
  body: string;
}
let server: Server | undefined;
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

/** A real HTTP server that answers with the given scripted responses in order. */
async function scripted(
  responses: Array<{ status: number; headers?: Record<string, string>; body: unknown } | 'drop'>,
): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ headers: req.headers, body });
      const next = responses[Math.min(seen.length - 1, responses.length - 1)]!;
      if (next === 'drop') return req.socket.destroy();
      res
        .writeHead(next.status, { 'content-type': 'application/json', ...next.headers })
        .end(JSON.stringify(next.body));
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  const address = server.address() as { port: number };
  return { url: `http://127.0.0.1:${address.port}`, seen };
}

const item = () => {
  const b = { type: 'page' as const, id: 'p:1', url: 'https://example.com/', text: 'hi' };
  return { ...b, checksum: computeItemChecksum(b) };
};
const ok = {
  status: 200,
  body: {
    ok: true,
    data: { website_id: 'w', received: 1, accepted: 1, skipped: 0, errored: 0, results: [] },
    meta: { requestId: 'r' },
  },
};
const unavailable = {
  status: 503,
  headers: { 'retry-after': '2' },
  body: {
    ok: false,
    error: { code: 'service.unavailable', message: 'busy', details: {}, retryable: true },
    meta: { requestId: 'r' },
  },
};

describe('reference client retries', () => {
  it('retries 503, 429 and a dropped connection with the same Idempotency-Key, a fresh nonce and the same body bytes, honouring Retry-After', async () => {
    const { url, seen } = await scripted([unavailable, 'drop', ok]);
    const waits: number[] = [];
    const client = new IngestClient({
      baseUrl: url,
      token: 'conn_x.secret',
      websiteId: 'w',
      sleep: async (ms) => void waits.push(ms),
    });
    const result = await client.sendBatch([item()]);
    expect(result.accepted).toBe(1);
    expect(seen).toHaveLength(3);
    expect(new Set(seen.map((s) => s.headers['idempotency-key'])).size).toBe(1);
    expect(new Set(seen.map((s) => s.headers['x-nonce'])).size).toBe(3);
    expect(new Set(seen.map((s) => s.body)).size).toBe(1);
    expect(waits[0]).toBe(2000);
    expect(waits[1]).toBeGreaterThanOrEqual(500);
    expect(waits[1]).toBeLessThanOrEqual(1000);
    expect(client.lastCall?.attempts).toBe(3);
  });

  it('regression: retries the retryable 408 request.timeout like the other retryable answers (it was final)', async () => {
    const timeout = {
      status: 408,
      headers: { connection: 'close' },
      body: {
        ok: false,
        error: { code: 'request.timeout', message: 'The body did not arrive in time.', details: {}, retryable: true },
        meta: { requestId: 'r' },
      },
    };
    const { url, seen } = await scripted([timeout, ok]);
    const retries: Array<{ status: number; code: string }> = [];
    const client = new IngestClient({
      baseUrl: url,
      token: 'conn_x.secret',
      websiteId: 'w',
      sleep: async () => {},
      onRetry: ({ status, code }) => void retries.push({ status, code }),
    });
    expect((await client.sendBatch([item()])).accepted).toBe(1);
    expect(retries).toEqual([{ status: 408, code: 'request.timeout' }]);
    expect(seen).toHaveLength(2);
    expect(new Set(seen.map((s) => s.headers['idempotency-key'])).size).toBe(1);
    expect(isRetryableStatus(408)).toBe(true);
  });

  it('gives up after 3 attempts with the last error', async () => {
    const { url, seen } = await scripted([
      {
        status: 429,
        body: {
          ok: false,
          error: { code: 'quota.rate_limited', message: 'slow down', details: {}, retryable: true },
          meta: { requestId: 'r' },
        },
      },
    ]);
    const client = new IngestClient({ baseUrl: url, token: 'conn_x.secret', websiteId: 'w', sleep: async () => {} });
    const error = await client.sendBatch([item()]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IngestError);
    expect((error as IngestError).code).toBe('quota.rate_limited');
    expect((error as IngestError).attempts).toBe(3);
    expect(seen).toHaveLength(3);
  });

  it('does not retry a 4xx contract error', async () => {
    const { url, seen } = await scripted([
      {
        status: 401,
        body: {
          ok: false,
          error: { code: 'auth.invalid_signature', message: 'bad', details: {}, retryable: false },
          meta: { requestId: 'r' },
        },
      },
    ]);
    const client = new IngestClient({ baseUrl: url, token: 'conn_x.secret', websiteId: 'w', sleep: async () => {} });
    await expect(client.sendBatch([item()])).rejects.toMatchObject({ code: 'auth.invalid_signature', status: 401 });
    expect(seen).toHaveLength(1);
  });

  it('splits pushItems into batches of 500', async () => {
    const { url, seen } = await scripted([ok]);
    const client = new IngestClient({ baseUrl: url, token: 'conn_x.secret', websiteId: 'w' });
    await client.pushItems(Array.from({ length: 1001 }, (_, i) => ({ ...item(), id: `p:${i}` })));
    expect(seen.map((s) => JSON.parse(s.body).items.length)).toEqual([500, 500, 1]);
  });

  it('backoff doubles from 500 ms with jitter and is capped at 30 s', () => {
    expect(retryDelayMs(DEFAULT_RETRY, 1, undefined, () => 0)).toBe(250);
    expect(retryDelayMs(DEFAULT_RETRY, 1, undefined, () => 1)).toBe(500);
    expect(retryDelayMs(DEFAULT_RETRY, 3, undefined, () => 1)).toBe(2000);
    expect(retryDelayMs(DEFAULT_RETRY, 20, undefined, () => 1)).toBe(30_000);
    expect(retryDelayMs(DEFAULT_RETRY, 1, 120)).toBe(30_000);
    expect(parseRetryAfter('7')).toBe(7);
    expect(parseRetryAfter(new Date(Date.now() + 5000).toUTCString())).toBeGreaterThanOrEqual(4);
  });
});
