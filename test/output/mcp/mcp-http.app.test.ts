import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import Ajv from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFixture } from '../../../src/compiler/fixture.js';
import type { UserPrincipal } from '../../../src/control/access/principal.js';
import { loadWebsiteInfo } from '../../../src/control/records/load-website.js';
import { createWebsite } from '../../../src/control/records/websites.js';
import { buildGraphFromItems } from '../../../src/ingest/graph/build-from-items.js';
import { createTargetFromSettings, runPublish } from '../../../src/output/publish/index.js';
import { siteHashOf } from '../../../src/output/publish/layout.js';
import { graphDbPath } from '../../../src/platform/storage/data-dir.js';
import { buildTestApp, injectJson, seedWebsite, type SeededWebsite, type TestApp } from '../../helpers/app.js';
import { PROJECT_ROOT } from '../../helpers/paths.js';

/**
 * MCP over Streamable HTTP (POST /v1/websites/:id/mcp) against the daemon's app listening on a
 * loopback port: the official SDK client and a plain JSON-RPC client over fetch, then every
 * refusal the API makes before MCP sees the request. The blog fixture is published in this process.
 */
type Json = Record<string, any>;
const DOMAIN = 'blog.fieldnotes.example';
const ACCEPT = 'application/json, text/event-stream';

let t: TestApp & { url?: string };
let site: SeededWebsite;
let endpoint: string;
const users = new Map<string, UserPrincipal>();

async function publishBlog(app: TestApp, websiteId: string): Promise<void> {
  const { services } = app;
  const info = loadWebsiteInfo(services.controlDb, websiteId)!;
  buildGraphFromItems(loadFixture(join(PROJECT_ROOT, 'fixtures', 'blog')).items, info, {
    file: graphDbPath(services.layout, websiteId),
    receivedAt: new Date().toISOString(),
  }).close();
  const target = await createTargetFromSettings(services.config.settings);
  try {
    await runPublish({
      settings: services.config.settings,
      controlDb: services.controlDb,
      target,
      source: { kind: 'website', websiteId },
    });
  } finally {
    await target.close();
  }
}

async function connect(headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'nodectl-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(endpoint), { requestInit: { headers } }));
  return client;
}

/** A plain JSON-RPC POST, as any HTTP client would send it. */
async function rpc(body: unknown, headers: Record<string, string> = {}): Promise<{ res: Response; json: Json }> {
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, 'x-api-key': site.apiKey, ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { res, json: text === '' ? {} : (JSON.parse(text) as Json) };
}

function validatorOf(schema: Json) {
  const draft2020 = typeof schema.$schema === 'string' && schema.$schema.includes('2020-12');
  const ajv = draft2020 ? new Ajv2020({ strict: false }) : new Ajv.default({ strict: false });
  addFormats.default(ajv);
  return ajv.compile(schema);
}

beforeAll(async () => {
  t = await buildTestApp({ listen: true, principalResolvers: { resolveUserPrincipal: (token) => users.get(token) } });
  site = await seedWebsite(t.services, DOMAIN);
  await publishBlog(t, site.websiteId);
  endpoint = `${t.url}/v1/websites/${site.websiteId}/mcp`;
}, 90_000);
afterAll(async () => t?.close());

describe('MCP over HTTP with the official SDK client', () => {
  let client: Client;
  beforeAll(async () => {
    client = await connect({ 'X-Api-Key': site.apiKey });
  });
  afterAll(async () => client?.close());

  it('initializes and lists the three read-only tools, each with an output schema', async () => {
    expect(client.getServerVersion()?.name).toBe(`nodectl-${DOMAIN}`);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'get_entity_facts',
      'list_node_files',
      'search_website_knowledge',
    ]);
    for (const tool of tools) {
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(true);
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(tool.outputSchema?.required, tool.name).toContain('node_version');
    }
  });

  it('answers every tool with structuredContent that validates against its output schema and equals the text', async () => {
    const { tools } = await client.listTools();
    const schemaOf = (name: string) => tools.find((tool) => tool.name === name)!.outputSchema as Json;
    const search = await client.callTool({
      name: 'search_website_knowledge',
      arguments: { query: 'golden eagles winter', limit: 5 },
    });
    const entityId = (search.structuredContent as Json).hits[0].id as string;
    const calls: Array<[string, Json]> = [
      ['search_website_knowledge', search as Json],
      ['get_entity_facts', (await client.callTool({ name: 'get_entity_facts', arguments: { entityId } })) as Json],
      ['list_node_files', (await client.callTool({ name: 'list_node_files', arguments: {} })) as Json],
    ];
    for (const [name, result] of calls) {
      expect(result.isError ?? false, name).toBe(false);
      const validate = validatorOf(schemaOf(name));
      expect(validate(result.structuredContent), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
      expect(JSON.parse(result.content[0].text), name).toEqual(result.structuredContent);
    }
    expect((search.structuredContent as Json).hits[0]).toMatchObject({
      kind: 'entity',
      title: 'Watching Golden Eagles in Winter',
    });
    const facts = calls[1]![1].structuredContent as Json;
    expect(facts.entity.id).toBe(entityId);
    expect(facts.facts.length).toBeGreaterThan(0);
    // A broken output would fail the check: the schema refuses a hit without its id.
    const validate = validatorOf(schemaOf('search_website_knowledge'));
    const broken = structuredClone(search.structuredContent) as Json;
    delete broken.hits[0].id;
    expect(validate(broken)).toBe(false);
  });

  it('refuses another websiteId as a tool error naming the HTTP endpoint', async () => {
    const other = (await client.callTool({
      name: 'list_node_files',
      arguments: { websiteId: 'web_01JOTHERSITE0000000000000' },
    })) as Json;
    expect(other.isError).toBe(true);
    expect(other.content[0].text).toContain(
      `This server serves website ${site.websiteId} only (POST /v1/websites/${site.websiteId}/mcp)`,
    );
  });

  it('lists the live node files as resources and reads them as published', async () => {
    const { resources } = await client.listResources();
    const uri = (path: string) => `nodectl://websites/${site.websiteId}/node/${path}`;
    const uris = resources.map((resource) => resource.uri);
    for (const path of ['manifest.json', 'llms.txt', 'ai.json']) expect(uris).toContain(uri(path));
    const latest = join(t.dataDir, 'nodes', siteHashOf(site.websiteId), 'latest');
    const manifest = await client.readResource({ uri: uri('manifest.json') });
    const parsed = JSON.parse((manifest.contents[0] as { text: string }).text) as Json;
    const files = (await client.callTool({ name: 'list_node_files', arguments: {} })).structuredContent as Json;
    expect(parsed.node_version).toBe(files.node_version);
    expect(parsed.files.length).toBe(files.files.length);
    const llms = await client.readResource({ uri: uri('llms.txt') });
    expect(llms.contents[0]).toMatchObject({ uri: uri('llms.txt'), mimeType: expect.stringContaining('text/plain') });
    expect((llms.contents[0] as { text: string }).text).toBe(readFileSync(join(latest, 'llms.txt'), 'utf8'));
    await expect(client.readResource({ uri: uri('nope.json') })).rejects.toThrow(/nope\.json/);
  });

  it('serves a user token with the viewer role as well as an API key', async () => {
    users.set('viewer-session', {
      kind: 'user',
      userId: 'usr_viewer',
      sessionId: 'ses_viewer',
      memberships: (id) => (id === site.organizationId ? 'viewer' : undefined),
    });
    const viewer = await connect({ Authorization: 'Bearer viewer-session' });
    try {
      const files = await viewer.callTool({ name: 'list_node_files', arguments: {} });
      expect((files.structuredContent as Json).domain).toBe(DOMAIN);
    } finally {
      await viewer.close();
    }
  });
});

describe('MCP over HTTP with a plain JSON-RPC client', () => {
  it('initializes, takes the initialized notification (202), and calls a tool', async () => {
    const init = await rpc({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: LATEST_PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name: 'curl', version: '1' },
      },
    });
    expect(init.res.status).toBe(200);
    expect(init.res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(init.res.headers.get('mcp-session-id')).toBeNull();
    expect(init.res.headers.get('x-request-id')).toBeTruthy();
    expect(init.res.headers.get('ratelimit-limit')).toBeTruthy();
    expect(init.res.headers.get('cache-control')).toBe('no-store');
    expect(init.json).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      result: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: { tools: {}, resources: {} } },
    });
    const version = { 'mcp-protocol-version': LATEST_PROTOCOL_VERSION };
    const notified = await rpc({ jsonrpc: '2.0', method: 'notifications/initialized' }, version);
    expect(notified.res.status).toBe(202);
    const call = await rpc(
      {
        jsonrpc: '2.0',
        id: 'search-1',
        method: 'tools/call',
        params: { name: 'search_website_knowledge', arguments: { query: 'golden eagles', limit: 2 } },
      },
      version,
    );
    expect(call.res.status).toBe(200);
    expect(call.json.id).toBe('search-1');
    expect(call.json.result.structuredContent.hits.length).toBeGreaterThan(0);
    expect(call.json.result.structuredContent.hits.length).toBeLessThanOrEqual(2);
    // Stateless: a tools/call needs no earlier initialize on the same connection or session.
    const unknown = await rpc({ jsonrpc: '2.0', id: 7, method: 'no/such' }, version);
    expect(unknown.json).toMatchObject({ id: 7, error: { code: -32601 } });
  });

  it('answers a message that is not JSON-RPC, and an unknown protocol version, with 422 validation.failed', async () => {
    const bad = await rpc({ hello: 'world' });
    expect(bad.res.status).toBe(422);
    expect(bad.json).toMatchObject({ ok: false, error: { code: 'validation.failed' } });
    const version = await rpc(
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { 'mcp-protocol-version': '1999-01-01' },
    );
    expect(version.res.status).toBe(422);
    expect(version.json.error.code).toBe('validation.failed');
    // Well-formed JSON-RPC the SDK transport still refuses: its reason, in the envelope.
    const initialize = {
      jsonrpc: '2.0',
      method: 'initialize',
      params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    const twice = await rpc([
      { ...initialize, id: 1 },
      { ...initialize, id: 2 },
    ]);
    expect(twice.res.status).toBe(422);
    expect(twice.json.error).toMatchObject({ code: 'validation.failed', message: expect.stringMatching(/initializ/) });
  });

  it('answers GET and DELETE with 405 and Allow: POST (stateless: no stream, no session)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(endpoint, { method, headers: { accept: 'text/event-stream', 'x-api-key': site.apiKey } });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(((await res.json()) as Json).error.code).toBe('request.method_not_allowed');
    }
  });
});

describe('MCP over HTTP refusals, in the API envelope before MCP', () => {
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 't', version: '1' } },
  };
  const post = (websiteId: string, headers: Record<string, string>) =>
    injectJson(t.app, {
      method: 'POST',
      url: `/v1/websites/${websiteId}/mcp`,
      headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers },
      payload: JSON.stringify(initialize),
    });

  it('401 auth.unauthenticated without a credential or with an unknown key', async () => {
    for (const headers of [{}, { 'x-api-key': 'nk_nope' }]) {
      const answer = await post(site.websiteId, headers);
      expect(answer.status).toBe(401);
      expect(answer.json).toMatchObject({ ok: false, error: { code: 'auth.unauthenticated' } });
      expect(answer.json.error.message).not.toMatch(/\n\s+at /);
    }
  });

  it("refuses another organization's key exactly as the API's website reads do", async () => {
    const stranger = await seedWebsite(t.services, 'stranger.example');
    const answer = await post(site.websiteId, { 'x-api-key': stranger.apiKey });
    const search = await injectJson(t.app, {
      method: 'GET',
      url: `/v1/websites/${site.websiteId}/knowledge/search?q=eagles`,
      headers: { 'x-api-key': stranger.apiKey },
    });
    expect([403, 404]).toContain(answer.status);
    expect(answer.status).toBe(search.status);
    expect(answer.json.error.code).toBe(search.json.error.code);
  });

  it('403 entitlement.capability_missing on a plan without cap.mcp', async () => {
    const free = await seedWebsite(t.services, 'free.example');
    t.services.controlDb.prepare("UPDATE organizations SET plan = 'free' WHERE id = ?").run(free.organizationId);
    const answer = await post(free.websiteId, { 'x-api-key': free.apiKey });
    expect(answer.status).toBe(403);
    expect(answer.json).toMatchObject({
      ok: false,
      error: { code: 'entitlement.capability_missing', details: { capability: 'cap.mcp', plan: 'free' } },
    });
  });

  it('409 website.not_verified for an unverified website, 404 node.not_found before a publish', async () => {
    const unverified = createWebsite(t.services.controlDb, {
      organizationId: site.organizationId,
      domain: 'unverified.example',
      name: 'Unverified',
    });
    const refused = await post(unverified.id, { 'x-api-key': site.apiKey });
    expect(refused.status).toBe(409);
    expect(refused.json.error.code).toBe('website.not_verified');
    const unpublished = await seedWebsite(t.services, 'unpublished.example');
    const missing = await post(unpublished.websiteId, { 'x-api-key': unpublished.apiKey });
    expect(missing.status).toBe(404);
    expect(missing.json.error.code).toBe('node.not_found');
    expect(missing.json.error.message).toContain('publish it first');
  });
});

describe('MCP over HTTP rate limit', () => {
  let limited: TestApp;
  afterAll(async () => limited?.close());

  it('429 quota.rate_limited past the principal limit, as every API route', async () => {
    limited = await buildTestApp({ settings: { rateLimitPerMinute: 2 } });
    const own = await seedWebsite(limited.services, 'limited.example');
    const statuses: number[] = [];
    let last: Json = {};
    for (let i = 0; i < 3; i++) {
      const answer = await injectJson(limited.app, {
        method: 'POST',
        url: `/v1/websites/${own.websiteId}/mcp`,
        headers: { 'content-type': 'application/json', accept: ACCEPT, 'x-api-key': own.apiKey },
        payload: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/list' }),
      });
      statuses.push(answer.status);
      last = answer;
    }
    // Nothing is published there: the first two pass the limit and meet node.not_found.
    expect(statuses).toEqual([404, 404, 429]);
    expect(last.json.error.code).toBe('quota.rate_limited');
    expect(last.headers['retry-after']).toBeDefined();
  });
});
