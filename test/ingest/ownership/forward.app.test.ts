import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/daemon/app.js';
import { createServices } from '../../../src/daemon/create-services.js';
import { FORWARDED_BY_HEADER, GraphOwnership } from '../../../src/ingest/ownership/index.js';
import type { AppServices } from '../../../src/platform/app/services.js';
import { resolveConfig } from '../../../src/platform/config/config.js';
import { createWebsiteLeases } from '../../../src/platform/storage/website-leases.js';
import { seedWebsite, type SeededWebsite } from '../../helpers/app.js';
import { makeTempDir } from '../../helpers/paths.js';
import { createTestDatabase } from '../../helpers/postgres.js';

/**
 * The forwarding of graph routes (src/ingest/ownership/forward.ts): a daemon's app on a PostgreSQL
 * control store whose website is written by another "daemon", here a loopback server that records
 * what reaches it and answers as the writer would. What the client sent arrives whole, what the
 * writer answers comes back whole; a request is forwarded once at most; a writer that does not
 * answer is a retryable 503.
 */
interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}
const received: Received[] = [];
let writer: Server;
let writerAddress: string;
let services: AppServices;
let app: FastifyInstance;
let site: SeededWebsite;
const temp = makeTempDir('nodectl-forward-');

beforeAll(async () => {
  writer = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({ method: request.method!, url: request.url!, headers: request.headers, body });
      response.writeHead(207, { 'content-type': 'application/json', 'x-writer': 'yes' });
      response.end(JSON.stringify({ ok: true, data: { answeredBy: 'writer' } }));
    });
  });
  await new Promise<void>((resolve) => writer.listen(0, '127.0.0.1', resolve));
  writerAddress = `http://127.0.0.1:${(writer.address() as AddressInfo).port}`;
  const config = resolveConfig({ flags: { dataDir: temp.dir, controlStore: await createTestDatabase() }, env: {} });
  services = createServices(config);
  const ownership = new GraphOwnership({
    controlDb: services.controlDb,
    jobs: services.jobs,
    logger: services.logger,
    now: services.now,
    leaseMs: 60_000,
    address: () => 'http://127.0.0.1:1',
    release: () => {},
    handover: { restore: async () => ({ rawContentIds: [], removed: [] }), snapshot: () => {}, idle: async () => {} },
  });
  app = await buildApp(services, { graphOwnership: ownership });
  await app.ready();
  site = await seedWebsite(services, 'forward.example');
  // The other daemon writes the website.
  createWebsiteLeases(services.controlDb).acquire(site.websiteId, 'writer-daemon', Date.now(), 60_000, writerAddress);
});

afterAll(async () => {
  await app?.close();
  services?.close();
  await services?.postgres?.close();
  await new Promise((resolve) => writer?.close(resolve));
  temp.cleanup();
});

describe('requests for a graph another daemon writes', () => {
  it('a signed ingest request is forwarded unread, and the writer’s answer comes back as it gave it', async () => {
    const body = JSON.stringify({ website_id: site.websiteId, partial: true, items: [] });
    const res = await app.inject({
      method: 'POST',
      url: '/v1/ingest/batch',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${site.connectorToken}`,
        'x-signature': 'v1=whatever-the-writer-checks',
        'idempotency-key': 'key-1',
      },
      payload: body,
      remoteAddress: '203.0.113.9',
    });
    expect(res.statusCode).toBe(207);
    expect(res.headers['x-writer']).toBe('yes');
    expect(res.json()).toEqual({ ok: true, data: { answeredBy: 'writer' } });
    const got = received.at(-1)!;
    expect(got).toMatchObject({ method: 'POST', url: '/v1/ingest/batch', body });
    expect(got.headers).toMatchObject({
      authorization: `Bearer ${site.connectorToken}`,
      'x-signature': 'v1=whatever-the-writer-checks',
      'idempotency-key': 'key-1',
      'x-forwarded-for': '203.0.113.9',
    });
    expect(got.headers[FORWARDED_BY_HEADER]).toMatch(/:\d+:/);
  });

  it('a management route of the website is forwarded with its query', async () => {
    const res = await app.inject({
      method: 'GET',
      url: `/v1/websites/${site.websiteId}/knowledge/search?q=heron`,
      headers: { authorization: `Bearer ${site.apiKey}` },
    });
    expect(res.statusCode).toBe(207);
    expect(received.at(-1)).toMatchObject({
      method: 'GET',
      url: `/v1/websites/${site.websiteId}/knowledge/search?q=heron`,
    });
  });

  it('routes that need no graph, unknown websites and unknown connectors are answered here', async () => {
    const before = received.length;
    const website = await app.inject({
      method: 'GET',
      url: `/v1/websites/${site.websiteId}`,
      headers: { authorization: `Bearer ${site.apiKey}` },
    });
    expect(website.statusCode).toBe(200);
    const unknown = await app.inject({
      method: 'GET',
      url: '/v1/websites/web_01JHKAB5P8S0T4W6X8Z0B2E4G6/knowledge/search?q=x',
      headers: { authorization: `Bearer ${site.apiKey}` },
    });
    expect(unknown.statusCode).toBe(404);
    const heartbeat = await app.inject({
      method: 'POST',
      url: '/v1/ingest/heartbeat',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${site.connectorToken}` },
      payload: '{}',
    });
    // Answered here: refused for its missing signature headers, not the writer's 207.
    expect(heartbeat.statusCode).toBe(422);
    expect(received.length).toBe(before);
  });

  it('a request another daemon already forwarded is not forwarded again: 503, retryable', async () => {
    const res = await app.inject({
      method: 'GET',
      url: `/v1/websites/${site.websiteId}/knowledge/search?q=heron`,
      headers: { authorization: `Bearer ${site.apiKey}`, [FORWARDED_BY_HEADER]: 'another-daemon' },
    });
    expect(res.statusCode).toBe(503);
    expect(res.json().error.code).toBe('service.unavailable');
    expect(res.headers['retry-after']).toBe('1');
  });

  it('a writer that does not answer is a 503 naming it, retryable', async () => {
    const db = services.controlDb;
    db.prepare('UPDATE website_leases SET address = ? WHERE website_id = ?').run('http://127.0.0.1:1', site.websiteId);
    const res = await app.inject({
      method: 'GET',
      url: `/v1/websites/${site.websiteId}/knowledge/search?q=heron`,
      headers: { authorization: `Bearer ${site.apiKey}` },
    });
    expect(res.statusCode).toBe(503);
    expect(res.json().error).toMatchObject({ code: 'service.unavailable', retryable: true });
    expect(res.json().error.message).toContain('http://127.0.0.1:1');
  });
});
