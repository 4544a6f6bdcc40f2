import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createHttpApp } from '../../../src/platform/http/create-app.js';
import { sendData } from '../../../src/platform/http/envelope.js';

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** The HTTP shell with one route and a logger whose lines land in `lines`. */
async function shellWithLog(): Promise<{ app: FastifyInstance; lines: Array<Record<string, unknown>> }> {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const shell = createHttpApp({
    settings: { headersTimeoutMs: 5000, bodyTimeoutMs: 5000, ingestBodyTimeoutMs: 5000, keepAliveTimeoutMs: 5000 },
    apiVersion: '0.0.0-test',
    logger: { level: 'info', stream },
  });
  shell.get('/echo', async (request, reply) => sendData(request, reply, { id: request.id }));
  await shell.ready();
  return { app: shell, lines };
}

describe('request ids are the server’s own (issue 36, F11)', () => {
  it('a client X-Request-Id never becomes the request id: the answer and the log use a new ULID, the client’s value is logged as client_request_id', async () => {
    const shell = await shellWithLog();
    app = shell.app;
    const res = await app.inject({ method: 'GET', url: '/echo', headers: { 'x-request-id': 'someone-elses-id' } });
    const id = res.headers['x-request-id'] as string;
    expect(id).toMatch(ULID);
    expect(res.json().meta.requestId).toBe(id);
    expect(res.json().data.id).toBe(id);
    const logged = shell.lines.filter((l) => l.reqId !== undefined);
    expect(logged.length).toBeGreaterThan(0);
    for (const line of logged) {
      expect(line.reqId).toBe(id);
      expect(line.client_request_id).toBe('someone-elses-id');
    }
  });

  it('two requests sending the same X-Request-Id get two different ids', async () => {
    const shell = await shellWithLog();
    app = shell.app;
    const send = () => app!.inject({ method: 'GET', url: '/echo', headers: { 'x-request-id': 'reused' } });
    const [a, b] = [await send(), await send()];
    expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
  });

  it('a client id that is not a plain token (spaces, over 128 characters) is not logged at all', async () => {
    const shell = await shellWithLog();
    app = shell.app;
    await app.inject({ method: 'GET', url: '/echo', headers: { 'x-request-id': 'bad id\twith spaces' } });
    await app.inject({ method: 'GET', url: '/echo', headers: { 'x-request-id': 'a'.repeat(129) } });
    const logged = shell.lines.filter((l) => l.reqId !== undefined);
    expect(logged.length).toBeGreaterThan(0);
    for (const line of logged) expect(line).not.toHaveProperty('client_request_id');
  });
});
