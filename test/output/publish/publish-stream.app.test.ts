import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPILE_PASSES, loadFixture } from '../../../src/compiler/index.js';
import { buildGraphFromItems } from '../../../src/ingest/graph/build-from-items.js';
import { acquirePublishLock } from '../../../src/output/publish/lock.js';
import { PublishProgressEventSchema, PublishResultSchema } from '../../../src/output/publish/schemas.js';
import { createApiKey } from '../../../src/control/records/api-keys.js';
import { loadWebsiteInfo } from '../../../src/control/records/load-website.js';
import { parseServerSentEvents } from '../../../src/sdk/api/event-stream.js';
import { graphDbPath } from '../../../src/platform/storage/data-dir.js';
import { buildTestApp, fakeClock, seedWebsite, type SeededWebsite, type TestApp } from '../../helpers/app.js';
import { SHOP, SHOP_DOMAIN } from './support.js';

// POST /v1/websites/:id/publish with Accept: text/event-stream, in process (the publish worker
// runs from dist/: `npm run build` first). The plain answers are checked against the OpenAPI
// document as everywhere (test/setup/api-contract.ts).
const clock = fakeClock();
let t: TestApp;
let site: SeededWebsite;
let editor: string;
let viewer: string;

function buildGraph(items: ReturnType<typeof loadFixture>['items']): void {
  const file = graphDbPath(t.services.layout, site.websiteId);
  for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
  const info = loadWebsiteInfo(t.services.controlDb, site.websiteId)!;
  buildGraphFromItems(items, info, { receivedAt: '2026-03-02T09:00:00Z', file }).close();
}

beforeAll(async () => {
  t = await buildTestApp({ clock });
  site = await seedWebsite(t.services, SHOP_DOMAIN);
  editor = createApiKey(t.services.controlDb, { organizationId: site.organizationId, role: 'editor' }).key;
  viewer = createApiKey(t.services.controlDb, { organizationId: site.organizationId, role: 'viewer' }).key;
  buildGraph(loadFixture(SHOP).items);
}, 60_000);
afterAll(async () => t?.close());

const publish = async (options: { key?: string; accept?: string; body?: unknown } = {}) => {
  const res = await t.app.inject({
    method: 'POST',
    url: `/v1/websites/${site.websiteId}/publish`,
    headers: {
      'x-api-key': options.key ?? editor,
      ...(options.accept ? { accept: options.accept } : {}),
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(options.body === undefined ? {} : { payload: JSON.stringify(options.body) }),
  });
  return { status: res.statusCode, headers: res.headers, body: res.body };
};
const STREAM = 'text/event-stream';
const events = (body: string) => parseServerSentEvents(body).map((e) => ({ event: e.event, data: JSON.parse(e.data) }));

describe('POST /v1/websites/:id/publish, streamed', () => {
  it('a dry run: compile progress per pass with counts, then a result equal to the plain answer', async () => {
    const plain = await publish({ body: { dryRun: true } });
    expect(plain.status, plain.body).toBe(200);
    expect(plain.headers['content-type']).toMatch(/^application\/json/);
    const streamed = await publish({ accept: STREAM, body: { dryRun: true } });
    expect(streamed.status, streamed.body).toBe(200);
    expect(streamed.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(streamed.headers['cache-control']).toBe('no-store');
    const all = events(streamed.body);
    const last = all.at(-1)!;
    expect(last.event).toBe('result');
    const plainAnswer = JSON.parse(plain.body);
    expect(last.data).toEqual({ ...plainAnswer, meta: { requestId: expect.any(String) } });
    expect(last.data.meta.requestId).toBe(streamed.headers['x-request-id']);
    const progress = all.slice(0, -1);
    expect(progress.every((e) => e.event === 'progress')).toBe(true);
    for (const e of progress) expect(PublishProgressEventSchema.strict().parse(e.data)).toEqual(e.data);
    const compile = progress.filter((e) => e.data.stage === 'compile').map((e) => e.data);
    // Passes never go backwards, records only grow, and the last report is every pass with every record.
    expect(compile.map((c) => c.done)).toEqual([...compile.map((c) => c.done)].sort((a, b) => a - b));
    expect(compile.map((c) => c.records)).toEqual([...compile.map((c) => c.records)].sort((a, b) => a - b));
    expect(compile.at(-1)).toMatchObject({ done: COMPILE_PASSES.length, total: COMPILE_PASSES.length });
    expect(compile.at(-1)!.records).toBe(plainAnswer.data.recordCount);
    expect(new Set(compile.filter((c) => c.file).map((c) => c.file))).toContain('facts.en.jsonl');
    expect([...new Set(progress.map((e) => e.data.stage))]).toEqual(['compile', 'check']);
  });

  it('a publish: the stages in order with their counts, then the answer the plain route gives', async () => {
    const streamed = await publish({ accept: `${STREAM}, application/json;q=0.5` });
    expect(streamed.status, streamed.body).toBe(200);
    const all = events(streamed.body);
    const result = all.at(-1)!;
    expect(result.event).toBe('result');
    expect(PublishResultSchema.strict().parse(result.data.data)).toEqual(result.data.data);
    expect(result.data).toMatchObject({ ok: true, data: { alreadyLive: false, previousVersion: null } });
    const progress = all.slice(0, -1).map((e) => e.data);
    const stages = progress.map((p) => p.stage).filter((s, i, list) => list[i - 1] !== s);
    expect(stages).toEqual(['compile', 'check', 'upload', 'patch', 'verify', 'latest', 'flip']);
    // Each step's objects are gone through, and upload plus patch account for every file as the answer does.
    for (const stage of ['upload', 'patch', 'verify', 'flip']) {
      const last = progress.filter((p) => p.stage === stage).at(-1)!;
      expect(last.done, stage).toBe(last.total);
    }
    const placed = ['upload', 'patch'].map((stage) => progress.filter((p) => p.stage === stage).at(-1)!);
    const files = result.data.data.files as Array<{ state: string }>;
    expect(placed.reduce((n, p) => n + p.uploaded, 0)).toBe(files.filter((f) => f.state === 'uploaded').length);
    expect(placed.reduce((n, p) => n + p.carried, 0)).toBe(files.filter((f) => f.state === 'carried').length);
    // Audited like the plain publish.
    const audited = t.services.controlDb
      .prepare("SELECT request_id FROM audit_log WHERE action = 'node.published' ORDER BY rowid DESC LIMIT 1")
      .pluck()
      .get();
    expect(audited).toBe(result.data.meta.requestId);
  });

  it('refusals before the work starts stay plain HTTP errors with their status', async () => {
    const forbidden = await publish({ key: viewer, accept: STREAM });
    expect(`${forbidden.status} ${forbidden.headers['content-type']}`).toMatch(/^403 application\/json/);
    const invalid = await publish({ accept: STREAM, body: { target: 's3' } });
    expect(`${invalid.status} ${JSON.parse(invalid.body).error.code}`).toBe('422 validation.failed');
    const lock = acquirePublishLock(t.services.controlDb, site.websiteId, { now: clock.now });
    try {
      const held = await publish({ accept: STREAM });
      expect(`${held.status} ${JSON.parse(held.body).error.code}`).toBe('409 publish.conflict');
      expect(held.headers['retry-after']).toBeDefined();
    } finally {
      lock.release();
    }
  });

  it('a failure once the work has started is an error event with the plain answer envelope and status', async () => {
    clock.advance(1_000);
    // A graph with two items against a live version of the whole shop: the drop gate refuses after the compile.
    buildGraph(loadFixture(SHOP).items.slice(0, 2));
    const plain = await publish();
    expect(plain.status, plain.body).toBe(409);
    const streamed = await publish({ accept: STREAM });
    expect(streamed.status).toBe(200);
    const all = events(streamed.body);
    expect(all.slice(0, -1).every((e) => e.event === 'progress')).toBe(true);
    expect(all.some((e) => e.data.stage === 'compile')).toBe(true);
    const error = all.at(-1)!;
    expect(error.event).toBe('error');
    const expected = JSON.parse(plain.body);
    expect(error.data).toEqual({ ...expected, meta: { requestId: streamed.headers['x-request-id'], status: 409 } });
    expect(error.data.error.code).toBe('publish.drop_gate');
  });
});
