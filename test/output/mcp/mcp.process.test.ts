import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFixture } from '../../../src/compiler/fixture.js';
import { loadWebsiteInfo } from '../../../src/control/records/load-website.js';
import { textHashOf } from '../../../src/ingest/embeddings/index.js';
import { buildGraphFromItems } from '../../../src/ingest/graph/build-from-items.js';
import { GRAPH_DB_OPTIONS } from '../../../src/ingest/graph/index.js';
import { createTargetFromSettings, runPublish } from '../../../src/output/publish/index.js';
import { siteHashOf } from '../../../src/output/publish/layout.js';
import { resolveConfig } from '../../../src/platform/config/config.js';
import { dataDirLayout, graphDbPath } from '../../../src/platform/storage/data-dir.js';
import { openDatabase } from '../../../src/platform/storage/index.js';
import { runNodectl } from '../../helpers/cli.js';
import { startTestDaemon } from '../../helpers/daemon.js';
import { makeTempDir, NODECTL_BIN, PROJECT_ROOT } from '../../helpers/paths.js';
import { seedApiKey, seedDataDir, withControlDb } from '../../helpers/seed.js';
import { pageItem } from '../../ingest/endpoints/support.js';
import { DIMENSIONS, embed, startEmbeddingsServer } from '../knowledge/embeddings-server.js';

const DOMAIN = 'blog.fieldnotes.example';
let temp: { dir: string; cleanup: () => void };
let websiteId: string;
let organizationId: string;
let client: Client;

/**
 * Publishes the blog fixture for a new website of the given plan, in this process: the blog's
 * items made into the website's graph (what pushing them and the content.ingest job make), then
 * published to the data directory's node store (what `nodectl publish --website` does). The
 * subject here is `nodectl mcp`, which reads what was published.
 */
async function publishBlog(dataDir: string, plan: 'free' | 'pro'): Promise<string> {
  const { websiteId: id, orgId } = await seedDataDir(dataDir, { domain: DOMAIN, plan });
  organizationId = orgId;
  const layout = dataDirLayout(dataDir);
  const info = await withControlDb(dataDir, (db) => loadWebsiteInfo(db, id)!);
  buildGraphFromItems(loadFixture(join(PROJECT_ROOT, 'fixtures', 'blog')).items, info, {
    file: graphDbPath(layout, id),
    receivedAt: new Date().toISOString(),
  }).close();
  const { settings } = resolveConfig({ flags: { dataDir }, env: {} });
  const target = await createTargetFromSettings(settings);
  try {
    await withControlDb(dataDir, (controlDb) =>
      runPublish({ settings, controlDb, target, source: { kind: 'website', websiteId: id } }),
    );
  } finally {
    await target.close();
  }
  return id;
}

async function call(
  name: string,
  args: Record<string, unknown>,
): Promise<{ isError: boolean; text: string; json: any; structured: unknown }> {
  const result = (await client.callTool({ name, arguments: args })) as {
    isError?: boolean;
    content: Array<{ type: string; text: string }>;
    structuredContent?: unknown;
  };
  const text = result.content[0]!.text;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { isError: result.isError === true, text, json, structured: result.structuredContent };
}

beforeAll(async () => {
  temp = makeTempDir('nodectl-mcp-');
  websiteId = await publishBlog(temp.dir, 'pro');
  client = new Client({ name: 'nodectl-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: 'node',
      args: [NODECTL_BIN, '--data-dir', temp.dir, 'mcp', '--website', websiteId],
      stderr: 'pipe',
    }),
  );
}, 90_000);
afterAll(async () => {
  await client?.close();
  temp?.cleanup();
});

describe('nodectl mcp', () => {
  it('offers exactly the tools the published mcp.json advertises, with the same inputs', async () => {
    const { tools } = await client.listTools();
    const advertised = JSON.parse(
      readFileSync(join(temp.dir, 'nodes', siteHashOf(websiteId), 'latest', 'mcp.json'), 'utf8'),
    ) as { tools: Array<{ name: string; input_schema: { required: string[]; properties: Record<string, unknown> } }> };
    expect(tools.map((t) => t.name).sort()).toEqual(advertised.tools.map((t) => t.name).sort());
    for (const tool of advertised.tools) {
      const offered = tools.find((t) => t.name === tool.name)!;
      expect(Object.keys(offered.inputSchema.properties ?? {}).sort()).toEqual(
        Object.keys(tool.input_schema.properties).sort(),
      );
      expect([...(offered.inputSchema.required ?? [])].sort()).toEqual([...tool.input_schema.required].sort());
      expect(offered.annotations?.readOnlyHint).toBe(true);
    }
  });

  it('search_website_knowledge ranks the matching post first and is deterministic', async () => {
    const first = await call('search_website_knowledge', { websiteId, query: 'golden eagles winter', limit: 5 });
    expect(first.isError, first.text).toBe(false);
    expect(first.json.hits.length).toBeGreaterThan(0);
    expect(first.json.hits.length).toBeLessThanOrEqual(5);
    expect(first.json.hits[0]).toMatchObject({
      kind: 'entity',
      title: 'Watching Golden Eagles in Winter',
      language: 'en',
    });
    expect(first.json.hits[0].id).toMatch(/^entity_[0-9a-f]+$/);
    const again = await call('search_website_knowledge', { websiteId, query: 'golden eagles winter', limit: 5 });
    expect(again.json).toEqual(first.json);
    const none = await call('search_website_knowledge', { websiteId, query: 'zzzqqq' });
    expect(none.json.hits).toEqual([]);
  });

  it('get_entity_facts returns the entity and its exported facts, most important first', async () => {
    const search = await call('search_website_knowledge', {
      websiteId,
      query: 'Watching Golden Eagles in Winter',
      limit: 1,
    });
    const entityId = search.json.hits[0].id as string;
    const facts = await call('get_entity_facts', { websiteId, entityId });
    expect(facts.isError, facts.text).toBe(false);
    expect(facts.json.entity).toMatchObject({ id: entityId, name: 'Watching Golden Eagles in Winter' });
    expect(facts.json.facts.length).toBeGreaterThan(0);
    for (const fact of facts.json.facts) expect(fact.subject_entity_id).toBe(entityId);
    const importance = facts.json.facts.map((f: { importance: number }) => f.importance);
    expect(importance).toEqual([...importance].sort((a, b) => b - a));
    const unknown = await call('get_entity_facts', { websiteId, entityId: 'entity_00' });
    expect(unknown.isError).toBe(true);
    expect(unknown.text).toMatch(/No entity entity_00 in node \w{26}; find ids with search_website_knowledge/);
  });

  it('list_node_files lists the live manifest files with checksums', async () => {
    const files = await call('list_node_files', { websiteId });
    expect(files.isError, files.text).toBe(false);
    const live = await runNodectl(['--json', 'versions', '--website', websiteId], { dataDir: temp.dir });
    expect(files.json.node_version).toBe(live.json()[0].node_version);
    expect(files.json.files.map((f: { path: string }) => f.path)).toContain('entities.en.jsonl');
    for (const f of files.json.files) expect(f.checksum).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('answers structuredContent that equals the text and validates against each output schema', async () => {
    const { tools } = await client.listTools();
    const search = await call('search_website_knowledge', { query: 'golden eagles winter', limit: 5 });
    const entityId = search.json.hits[0].id as string;
    const results = {
      search_website_knowledge: search,
      get_entity_facts: await call('get_entity_facts', { entityId }),
      list_node_files: await call('list_node_files', {}),
    };
    for (const [name, result] of Object.entries(results)) {
      const schema = tools.find((tool) => tool.name === name)!.outputSchema;
      expect(schema, name).toBeDefined();
      const ajv = new Ajv.default({ strict: false });
      addFormats.default(ajv);
      const validate = ajv.compile(schema!);
      expect(validate(result.structured), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
      expect(result.structured, name).toEqual(result.json);
    }
  });

  it('serves the live node files as resources', async () => {
    const { resources } = await client.listResources();
    const uri = `nodectl://websites/${websiteId}/node/llms.txt`;
    expect(resources.map((r) => r.uri)).toContain(`nodectl://websites/${websiteId}/node/manifest.json`);
    const read = await client.readResource({ uri });
    expect((read.contents[0] as { text: string }).text).toBe(
      readFileSync(join(temp.dir, 'nodes', siteHashOf(websiteId), 'latest', 'llms.txt'), 'utf8'),
    );
  });

  it('takes websiteId as optional, defaulting to the website of --website (issue 37)', async () => {
    const { tools } = await client.listTools();
    for (const tool of tools) {
      expect(tool.inputSchema.properties, tool.name).toHaveProperty('websiteId');
      expect(tool.inputSchema.required ?? [], tool.name).not.toContain('websiteId');
    }
    const search = await call('search_website_knowledge', { query: 'golden eagles winter', limit: 5 });
    expect(search.isError, search.text).toBe(false);
    expect(search.json).toEqual(
      (await call('search_website_knowledge', { websiteId, query: 'golden eagles winter', limit: 5 })).json,
    );
    const entityId = search.json.hits[0].id as string;
    const facts = await call('get_entity_facts', { entityId });
    expect(facts.isError, facts.text).toBe(false);
    expect(facts.json).toEqual((await call('get_entity_facts', { websiteId, entityId })).json);
    const files = await call('list_node_files', {});
    expect(files.isError, files.text).toBe(false);
    expect(files.json).toEqual((await call('list_node_files', { websiteId })).json);
  });

  it('refuses another websiteId in every tool with an MCP InvalidParams error', async () => {
    for (const [name, extra] of [
      ['search_website_knowledge', { query: 'x' }],
      ['get_entity_facts', { entityId: 'entity_00' }],
      ['list_node_files', {}],
    ] as const) {
      const other = await call(name, { websiteId: 'web_01JOTHERSITE0000000000000', ...extra });
      expect(other.isError, name).toBe(true);
      expect(other.text).toBe(
        `MCP error -32602: This server serves website ${websiteId} only (nodectl mcp --website ${websiteId}); got websiteId "web_01JOTHERSITE0000000000000". Leave websiteId out to use ${websiteId}.`,
      );
    }
  });

  it('refuses to start (exit 2) without cap.mcp, for an unknown website, or without --website; exit 1 when nothing is published', async () => {
    const other = makeTempDir('nodectl-mcp-free-');
    try {
      const free = await seedDataDir(other.dir, { domain: 'free.example', plan: 'free' });
      const refused = await runNodectl(['mcp', '--website', free.websiteId], { dataDir: other.dir });
      expect(refused.exitCode).toBe(2);
      expect(refused.stderr).toContain(`website ${free.websiteId} is on the free plan, which lacks cap.mcp`);
      expect(refused.stdout).toBe('');
      const unknown = await runNodectl(['mcp', '--website', 'web_01JNOSUCHSITE000000000000'], { dataDir: other.dir });
      expect(unknown.exitCode).toBe(2);
      expect(unknown.stderr).toContain('no website web_01JNOSUCHSITE000000000000');
      const missing = await runNodectl(['mcp'], { dataDir: other.dir });
      expect(missing.exitCode).toBe(2);
      const pro = await seedDataDir(other.dir, { domain: 'pro.example', plan: 'pro' });
      const unpublished = await runNodectl(['mcp', '--website', pro.websiteId], { dataDir: other.dir });
      expect(unpublished.exitCode).toBe(1);
      expect(unpublished.stderr).toContain(`run \`nodectl publish --website ${pro.websiteId}\` first`);
    } finally {
      other.cleanup();
    }
  });
});

describe("nodectl mcp searching by meaning with the node's vectors", () => {
  it('embeds the query with the configured provider and answers hybrid hits, reporting the mode', async () => {
    const dir = makeTempDir('nodectl-mcp-vectors-');
    const provider = await startEmbeddingsServer();
    const embeddingsFlags = {
      embeddingsUrl: provider.url,
      embeddingsModel: 'hash-bow',
      embeddingsDimensions: DIMENSIONS,
    };
    let stdio: Client | undefined;
    try {
      const { websiteId: id } = await seedDataDir(dir.dir, { domain: 'example.com', plan: 'business' });
      const file = graphDbPath(dataDirLayout(dir.dir), id);
      const info = await withControlDb(dir.dir, (db) => loadWebsiteInfo(db, id)!);
      const pages = {
        flights: 'Book cheap flights to Lisbon with our travel desk.',
        grinder: 'Clean the burrs of your coffee grinder every month.',
      };
      buildGraphFromItems(
        Object.entries(pages).map(([page, text]) => pageItem(page, text) as never),
        info,
        { file, receivedAt: new Date().toISOString() },
      ).close();
      // The vectors the embeddings job would store (the compile reads the floats and the text hash).
      const graph = openDatabase(file, GRAPH_DB_OPTIONS);
      try {
        const insert = graph.prepare(
          "INSERT INTO chunk_vectors (chunk_id, text_hash, model, vector, bits) VALUES (?, ?, 'hash-bow@256', ?, zeroblob(32))",
        );
        for (const { id: chunkId, text } of graph.prepare('SELECT id, text FROM chunks').all() as Array<{
          id: string;
          text: string;
        }>)
          insert.run(chunkId, textHashOf(text), Buffer.from(Float32Array.from(embed(text)).buffer));
      } finally {
        graph.close();
      }
      const { settings } = resolveConfig({ flags: { dataDir: dir.dir, ...embeddingsFlags }, env: {} });
      const target = await createTargetFromSettings(settings);
      try {
        await withControlDb(dir.dir, (controlDb) =>
          runPublish({ settings, controlDb, target, source: { kind: 'website', websiteId: id } }),
        );
      } finally {
        await target.close();
      }

      stdio = new Client({ name: 'nodectl-test', version: '1.0.0' });
      await stdio.connect(
        new StdioClientTransport({
          command: 'node',
          args: [NODECTL_BIN, '--data-dir', dir.dir, 'mcp', '--website', id],
          env: {
            ...getDefaultEnvironment(),
            NODECTL_EMBEDDINGS_URL: provider.url,
            NODECTL_EMBEDDINGS_MODEL: 'hash-bow',
            NODECTL_EMBEDDINGS_DIMENSIONS: String(DIMENSIONS),
          },
          stderr: 'pipe',
        }),
      );
      const search = async (args: Record<string, unknown>) =>
        (
          (await stdio!.callTool({ name: 'search_website_knowledge', arguments: args })) as {
            structuredContent: { mode: string; hits: Array<{ source_url?: string }> };
          }
        ).structuredContent;
      expect(await search({ query: 'inexpensive airfare', mode: 'keyword' })).toMatchObject({
        mode: 'keyword',
        hits: [],
      });
      const hybrid = await search({ query: 'inexpensive airfare' });
      expect(hybrid.mode).toBe('hybrid');
      expect(hybrid.hits[0]?.source_url).toBe('https://example.com/flights');
      expect(provider.inputs).toContain('inexpensive airfare');
    } finally {
      await stdio?.close();
      await provider.close();
      dir.cleanup();
    }
  });
});

describe('MCP over HTTP on the real daemon (the built binary)', () => {
  it('serves the same tools and resources as stdio to an API key, over loopback', async () => {
    const key = await seedApiKey(temp.dir, organizationId, 'viewer');
    const daemon = await startTestDaemon({ dataDir: temp.dir });
    const http = new Client({ name: 'nodectl-test', version: '1.0.0' });
    try {
      await http.connect(
        new StreamableHTTPClientTransport(new URL(`${daemon.url}/v1/websites/${websiteId}/mcp`), {
          requestInit: { headers: { Authorization: `Bearer ${key}` } },
        }),
      );
      expect((await http.listTools()).tools.map((t) => t.name).sort()).toEqual(
        (await client.listTools()).tools.map((t) => t.name).sort(),
      );
      const overHttp = await http.callTool({ name: 'list_node_files', arguments: {} });
      expect(overHttp.structuredContent).toEqual((await call('list_node_files', {})).structured);
      const search = await http.callTool({ name: 'search_website_knowledge', arguments: { query: 'golden eagles' } });
      expect(search.structuredContent).toEqual(
        (await call('search_website_knowledge', { query: 'golden eagles' })).structured,
      );
      expect((await http.listResources()).resources.map((r) => r.uri)).toEqual(
        (await client.listResources()).resources.map((r) => r.uri),
      );
    } finally {
      await http.close();
      await daemon.stop();
    }
  });
});
