import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFixture } from '../../../src/compiler/index.js';
import { buildGraphFromItems } from '../../../src/ingest/graph/build-from-items.js';
import { acquirePublishLock } from '../../../src/output/publish/lock.js';
import { writePurgeMarker } from '../../../src/output/publish/purge-marker.js';
import { createTargetFromSettings } from '../../../src/output/publish/targets/index.js';
import { graphDbPath } from '../../../src/platform/storage/data-dir.js';
import { createApiKey } from '../../../src/control/records/api-keys.js';
import { loadWebsiteInfo } from '../../../src/control/records/load-website.js';
import {
  buildTestApp,
  fakeClock,
  injectJson,
  seedWebsite,
  type SeededWebsite,
  type TestApp,
} from '../../helpers/app.js';
import { SHOP, SHOP_DOMAIN } from './support.js';

// The publish routes in process on a fake clock (the publish worker runs from dist/: `npm run build` first).
// Every answer is also checked against the OpenAPI document (test/setup/api-contract.ts).
const clock = fakeClock();
let t: TestApp;
let site: SeededWebsite;
let empty: SeededWebsite;
const keys = {} as Record<'viewer' | 'editor' | 'admin', string>;
const versions: string[] = [];

beforeAll(async () => {
  t = await buildTestApp({ clock });
  site = await seedWebsite(t.services, SHOP_DOMAIN);
  empty = await seedWebsite(t.services, 'empty.example');
  for (const [name, role] of [
    ['viewer', 'viewer'],
    ['editor', 'editor'],
    ['admin', 'organization_admin'],
  ] as const)
    keys[name] = createApiKey(t.services.controlDb, { organizationId: site.organizationId, role }).key;
  const info = loadWebsiteInfo(t.services.controlDb, site.websiteId)!;
  buildGraphFromItems(loadFixture(SHOP).items, info, {
    receivedAt: '2026-03-02T09:00:00Z',
    file: graphDbPath(t.services.layout, site.websiteId),
  }).close();
}, 60_000);
afterAll(async () => t?.close());

const call = (method: 'GET' | 'POST' | 'DELETE', url: string, key: string | undefined, body?: unknown) =>
  injectJson(t.app, {
    method,
    url,
    headers: {
      ...(key ? { 'x-api-key': key } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
const path = (suffix: string, websiteId = site.websiteId) => `/v1/websites/${websiteId}${suffix}`;
const nextSecond = () => clock.advance(1_000);

describe('POST /v1/websites/:id/publish', () => {
  it('answers the summary `nodectl publish` prints: files, file changes, record count and rejections', async () => {
    const res = await call('POST', path('/publish'), keys.editor);
    expect(res.status, res.body).toBe(200);
    const data = res.json.data;
    expect(data).toMatchObject({ alreadyLive: false, dryRun: false, previousVersion: null, rejected: { total: 0 } });
    expect(data.recordCount).toBeGreaterThan(10);
    expect(data.changes.length).toBeGreaterThan(10);
    expect(data.changes.every((c: { change: string }) => c.change === 'added')).toBe(true);
    expect(data.publicUrl).toMatch(new RegExp(`/${SHOP_DOMAIN.replace(/\./g, '\\.')}/manifest\\.json$`));
    versions.push(data.versionUlid);
    nextSecond();
    const forced = await call('POST', path('/publish'), keys.editor, { force: true });
    expect(forced.status, forced.body).toBe(200);
    expect(forced.json.data).toMatchObject({ previousVersion: versions[0], alreadyLive: false });
    expect(forced.json.data.changes.some((c: { change: string }) => c.change === 'unchanged')).toBe(true);
    versions.push(forced.json.data.versionUlid);
  });

  it('refuses a viewer (403), an unknown body field (422), a website with nothing ingested (409) and a second publish while one holds the lock (409, retryable)', async () => {
    expect((await call('POST', path('/publish'), keys.viewer)).json.error.code).toBe('auth.forbidden');
    const bad = await call('POST', path('/publish'), keys.editor, { force: true, target: 's3' });
    expect(bad.status).toBe(422);
    expect(bad.json.error.details.fields).toEqual([expect.objectContaining({ path: '(root)' })]);
    const emptyKey = createApiKey(t.services.controlDb, { organizationId: empty.organizationId, role: 'editor' }).key;
    const nothing = await call('POST', path('/publish', empty.websiteId), emptyKey);
    expect(`${nothing.status} ${nothing.json.error.code}`).toBe('409 publish.nothing_to_publish');
    const lock = acquirePublishLock(t.services.controlDb, site.websiteId, { now: clock.now });
    try {
      const held = await call('POST', path('/publish'), keys.editor);
      expect(`${held.status} ${held.json.error.code} ${held.json.error.retryable}`).toBe('409 publish.conflict true');
      expect(held.headers['retry-after']).toBeDefined();
    } finally {
      lock.release();
    }
  });
});

describe('GET /v1/websites/:id/versions', () => {
  it('lists the stored versions newest first with the live and purged flags, a page at a time', async () => {
    const res = await call('GET', path('/versions'), keys.viewer);
    expect(res.status, res.body).toBe(200);
    expect(res.json.data.items.map((v: { node_version: string }) => v.node_version)).toEqual([...versions].reverse());
    expect(res.json.data.items[0]).toMatchObject({
      live: true,
      purged: false,
      node_version_label: expect.stringMatching(/^\d{4}-\d{2}-\d{2}\.2$/),
    });
    expect(res.json.data.items[1]).toMatchObject({ live: false, purged: false });
    expect(res.json.data.next_cursor).toBeNull();
    const first = await call('GET', path('/versions?limit=1'), keys.viewer);
    expect(first.json.data.items.map((v: { node_version: string }) => v.node_version)).toEqual([versions[1]]);
    const second = await call('GET', path(`/versions?limit=1&cursor=${first.json.data.next_cursor}`), keys.viewer);
    expect(second.json.data).toMatchObject({ items: [{ node_version: versions[0] }], next_cursor: null });
  });

  it('answers an empty list for a website never published, and 422 for a bad limit or cursor', async () => {
    const emptyKey = createApiKey(t.services.controlDb, { organizationId: empty.organizationId, role: 'viewer' }).key;
    expect((await call('GET', path('/versions', empty.websiteId), emptyKey)).json.data).toEqual({
      items: [],
      next_cursor: null,
    });
    expect((await call('GET', path('/versions?limit=0'), keys.viewer)).json.error.details.fields).toEqual([
      { path: 'limit', message: 'must be at least 1' },
    ]);
    expect((await call('GET', path('/versions?cursor=nope'), keys.viewer)).json.error.code).toBe('validation.failed');
  });
});

describe('POST /v1/websites/:id/rollback', () => {
  it('flips latest/ back to the earlier version (editor), audited like a publish', async () => {
    expect((await call('POST', path('/rollback'), keys.viewer, { version: versions[0] })).json.error.code).toBe(
      'auth.forbidden',
    );
    const res = await call('POST', path('/rollback'), keys.editor, { version: versions[0] });
    expect(res.status, res.body).toBe(200);
    expect(res.json.data).toMatchObject({ versionUlid: versions[0], previousVersion: versions[1] });
    expect(res.json.data.files.length).toBeGreaterThan(10);
    const listed = (await call('GET', path('/versions'), keys.viewer)).json.data.items;
    expect(listed.find((v: { live: boolean }) => v.live).node_version).toBe(versions[0]);
    const audit = t.services.controlDb
      .prepare(
        "SELECT actor_kind AS actorKind, target, request_id AS requestId, details FROM audit_log WHERE action = 'node.rolled_back'",
      )
      .all() as Array<{ actorKind: string; target: string; requestId: string; details: string }>;
    expect(audit).toEqual([
      {
        actorKind: 'api_key',
        target: site.websiteId,
        requestId: res.json.meta.requestId,
        details: expect.stringContaining(versions[0]!),
      },
    ]);
    const manifest = await injectJson(t.app, { method: 'GET', url: `/nodes/${SHOP_DOMAIN}/manifest.json` });
    expect(manifest.json.node_version).toBe(versions[0]);
  });

  it('refuses a missing or malformed version (422), an unknown one (404), a purged one (409) and one while the lock is held (409)', async () => {
    const missing = await call('POST', path('/rollback'), keys.editor, {});
    expect(missing.status).toBe(422);
    expect(missing.json.error.details.fields).toEqual([
      { path: 'version', message: 'is required: a node_version from GET /v1/websites/:id/versions' },
    ]);
    expect(
      (await call('POST', path('/rollback'), keys.editor, { version: 'latest' })).json.error.details.fields[0].path,
    ).toBe('version');
    const unknown = await call('POST', path('/rollback'), keys.editor, { version: '01ARZ3NDEKTSV4RRFFQ69G5FAV' });
    expect(`${unknown.status} ${unknown.json.error.code}`).toBe('404 version.not_found');
    const target = await createTargetFromSettings(t.services.config.settings);
    try {
      await writePurgeMarker(target, site.websiteId, versions[1]!, {
        reason: 'gdpr_erasure',
        purged_at: '2026-03-02T10:05:00Z',
        files: [],
      });
    } finally {
      await target.close();
    }
    const purged = await call('POST', path('/rollback'), keys.editor, { version: versions[1] });
    expect(`${purged.status} ${purged.json.error.code}`).toBe('409 publish.version_purged');
    expect((await call('GET', path('/versions'), keys.viewer)).json.data.items[0]).toMatchObject({
      node_version: versions[1],
      purged: true,
      live: false,
    });
    const lock = acquirePublishLock(t.services.controlDb, site.websiteId, { now: clock.now });
    try {
      expect((await call('POST', path('/rollback'), keys.editor, { version: versions[0] })).json.error.code).toBe(
        'publish.conflict',
      );
    } finally {
      lock.release();
    }
  });
});

describe('DELETE /v1/websites/:id/node', () => {
  it('takes the node down (organization_admin); the versions stay, none live; a rollback brings it back', async () => {
    expect((await call('DELETE', path('/node'), keys.editor)).json.error.code).toBe('auth.forbidden');
    const down = await call('DELETE', path('/node'), keys.admin);
    expect(down.status, down.body).toBe(200);
    expect(down.json.data).toEqual({ tombstoned: true });
    expect((await injectJson(t.app, { method: 'GET', url: `/nodes/${SHOP_DOMAIN}/manifest.json` })).status).toBe(410);
    const listed = (await call('GET', path('/versions'), keys.viewer)).json.data.items;
    expect(listed.map((v: { live: boolean }) => v.live)).toEqual([false, false]);
    const lock = acquirePublishLock(t.services.controlDb, site.websiteId, { now: clock.now });
    try {
      expect(`${(await call('DELETE', path('/node'), keys.admin)).status}`).toBe('409');
    } finally {
      lock.release();
    }
    const back = await call('POST', path('/rollback'), keys.editor, { version: versions[0] });
    expect(back.json.data).toMatchObject({ versionUlid: versions[0], previousVersion: null });
    expect((await injectJson(t.app, { method: 'GET', url: `/nodes/${SHOP_DOMAIN}/manifest.json` })).status).toBe(200);
  });
});
