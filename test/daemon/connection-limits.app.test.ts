import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, resolveConfig } from '../../src/platform/config/config.js';
import { connectionTimeouts } from '../../src/platform/http/timeouts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

/** Shortened clocks so the slow-client tests run in about a second each. */
const HEADERS_MS = 400;
const BODY_MS = 500;
const INGEST_BODY_MS = 1500;

let t: TestApp & { url?: string };
let port: number;

beforeAll(async () => {
  t = await buildTestApp({
    listen: true,
    settings: { headersTimeoutMs: HEADERS_MS, bodyTimeoutMs: BODY_MS, ingestBodyTimeoutMs: INGEST_BODY_MS },
  });
  port = Number(new URL(t.url!).port);
});
afterAll(async () => {
  await t?.close();
});

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  json: any;
  /** ms from the last write to the connection closing. */
  closedAfterMs: number;
}

/**
 * Writes `parts` to a raw connection, then waits for the server to answer and close it. Only the
 * server closes it: a connection still open after 10 s fails the exchange (a hang guard; the
 * timeouts under test are below a second or two, and a later close than theirs is the bug).
 */
function exchange(parts: Array<string | Buffer>): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let wroteAt = 0;
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the connection open 10 s; received: ${Buffer.concat(chunks).toString()}`));
    }, 10_000);
    socket.on('connect', () => {
      for (const part of parts) socket.write(part);
      wroteAt = Date.now();
    });
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(giveUp);
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, json, closedAfterMs: Date.now() - wroteAt });
    });
  });
}

function expectEnvelope(answer: RawAnswer, status: number, code: string): void {
  expect(answer.status, JSON.stringify(answer)).toBe(status);
  expect(answer.json).toMatchObject({ ok: false, error: { code } });
  expect(answer.headers['x-request-id']).toBeTruthy();
  expect(answer.json.meta.requestId).toBe(answer.headers['x-request-id']);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
}

const post = (path: string, contentLength: number, extra = '') =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${contentLength}\r\n${extra}\r\n`;

describe('slow clients get 408 request.timeout in the envelope and are disconnected (bug: half a body held a connection 7+ minutes)', () => {
  it('half a body on a management route: 408 after bodyTimeoutMs, with the request id of the server (never the one it sent)', async () => {
    const answer = await exchange([post('/v1/waitlist', 100, 'X-Request-Id: slow-body-1\r\n'), '{"email":"slow@exa']);
    expectEnvelope(answer, 408, 'request.timeout');
    expect(answer.json.meta.requestId).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(answer.json.error.retryable).toBe(true);
    expect(answer.headers.connection).toBe('close');
    expect(answer.closedAfterMs).toBeGreaterThanOrEqual(BODY_MS - 50);
  });

  it('half a body on /v1/ingest/*: the longer ingestBodyTimeoutMs applies', async () => {
    const answer = await exchange([post('/v1/ingest/batch', 1000), '{"website_id":"web_x","items":[']);
    expectEnvelope(answer, 408, 'request.timeout');
    expect(answer.closedAfterMs).toBeGreaterThanOrEqual(INGEST_BODY_MS - 50);
  });

  it('headers never finished: 408 after headersTimeoutMs', async () => {
    const answer = await exchange(['GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ']);
    expectEnvelope(answer, 408, 'request.timeout');
    expect(answer.closedAfterMs).toBeGreaterThanOrEqual(HEADERS_MS - 50);
  });

  it('a connection that sends nothing is closed after headersTimeoutMs', async () => {
    const answer = await exchange([]);
    expect(answer.closedAfterMs).toBeGreaterThanOrEqual(HEADERS_MS - 50);
  });

  it('a complete slow-enough request is answered normally', async () => {
    const body = JSON.stringify({ email: 'in-time@example.com', consent: true });
    const answer = await exchange([post('/v1/waitlist', Buffer.byteLength(body), 'Connection: close\r\n'), body]);
    expect(answer.status).toBe(202);
  });
});

describe('errors Node raises before routing are in the envelope (bug: Node and Fastify answered them raw)', () => {
  it('headers over 16 KiB are 431 request.header_too_large', async () => {
    expectEnvelope(
      await exchange([`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]),
      431,
      'request.header_too_large',
    );
  });

  it('a URL over 16 KiB is 431 too', async () => {
    expectEnvelope(
      await exchange([`GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`]),
      431,
      'request.header_too_large',
    );
  });

  it('a malformed request line or header is 400 request.malformed', async () => {
    expectEnvelope(await exchange(['NOT-HTTP\r\n\r\n']), 400, 'request.malformed');
    expectEnvelope(
      await exchange(['GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header: x\r\n\r\n']),
      400,
      'request.malformed',
    );
  });

  it('a bad percent-encoding is 400 request.malformed and a 257-character path segment 414 request.uri_too_long', async () => {
    expectEnvelope(
      await exchange(['GET /%zz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n']),
      400,
      'request.malformed',
    );
    expectEnvelope(
      await exchange([
        `POST /v1/websites/${'w'.repeat(257)}/publish HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
      ]),
      414,
      'request.uri_too_long',
    );
  });

  it('the daemon keeps serving afterwards', async () => {
    const res = await fetch(`${t.url}/healthz`);
    expect(res.status).toBe(200);
  });
});

describe('connection timeout settings', () => {
  it('default to 10 s for headers, 30 s for a body, 120 s for an ingest body and 72 s keep-alive', () => {
    const { settings } = resolveConfig({ env: {} });
    expect([
      settings.headersTimeoutMs,
      settings.bodyTimeoutMs,
      settings.ingestBodyTimeoutMs,
      settings.keepAliveTimeoutMs,
    ]).toEqual([10_000, 30_000, 120_000, 72_000]);
    // Node's own whole-request clock is a backstop behind the per-route body timers.
    expect(connectionTimeouts(settings)).toMatchObject({ headersMs: 10_000, requestMs: 130_000, checkEveryMs: 1000 });
  });

  it('refuse 0 (no timeout) and values past 1 h, naming the setting', () => {
    expect(() => resolveConfig({ env: { NODECTL_BODY_TIMEOUT_MS: '0' } })).toThrowError(ConfigError);
    expect(() => resolveConfig({ env: { NODECTL_BODY_TIMEOUT_MS: '0' } })).toThrowError(
      /bodyTimeoutMs \(from environment variable NODECTL_BODY_TIMEOUT_MS\)/,
    );
    expect(() => resolveConfig({ flags: { headersTimeoutMs: 3_600_001 } })).toThrowError(
      /headersTimeoutMs.*at most 3600000/,
    );
    expect(resolveConfig({ env: { NODECTL_INGEST_BODY_TIMEOUT_MS: '600000' } }).settings.ingestBodyTimeoutMs).toBe(
      600_000,
    );
  });
});
