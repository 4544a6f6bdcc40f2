import { hostname } from 'node:os';
import { createHash } from 'node:crypto';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateNode } from '../../../src/compiler/index.js';
import { AppError } from '../../../src/platform/errors/app-error.js';
import { openControlDb } from '../../../src/platform/storage/control.js';
import { dataDirLayout } from '../../../src/platform/storage/data-dir.js';
import type { Db } from '../../../src/platform/storage/sqlite.js';
import {
  acquirePublishLock,
  IMMUTABLE_CACHE,
  listStoredVersions,
  MUTABLE_CACHE,
  publishNode,
  rollbackNode,
  siteHashOf,
  siteKeys,
  takeDownNode,
  type PublishResult,
  type PublishTarget,
} from '../../../src/output/publish/index.js';
import { verifyVersion } from '../../../src/output/publish/flip.js';
import { writePurgeMarker } from '../../../src/output/publish/purge-marker.js';
import { markVersionsPurged } from '../../../src/output/publish/purge-versions.js';
import { createFsTarget } from '../../../src/output/publish/targets/fs.js';
import { createS3Target } from '../../../src/output/publish/targets/s3.js';
import { makeTempDir } from '../../helpers/paths.js';
import { startLocalS3, type LocalS3 } from './s3-server.js';
import {
  changeLastItem,
  compileFixtureTo,
  SHOP,
  SHOP_DOMAIN,
  SHOP_GOLDEN,
  SHOP_WEBSITE,
  shopVariant,
} from './support.js';
import { appErrorFrom } from '../../helpers/app-error.js';

const temp = makeTempDir('nodectl-publish-');
let s3: LocalS3;
const nodes: Record<'v1' | 'v2' | 'small', string> = { v1: '', v2: '', small: '' };
const NOW = Date.parse('2026-03-02T12:00:00Z');

beforeAll(async () => {
  s3 = await startLocalS3();
  nodes.v1 = await compileFixtureTo(SHOP, join(temp.dir, 'node-v1'));
  nodes.v2 = await compileFixtureTo(
    shopVariant(join(temp.dir, 'fx-v2'), { buildTime: '2026-03-02T10:00:00Z', mutate: changeLastItem }),
    join(temp.dir, 'node-v2'),
  );
  nodes.small = await compileFixtureTo(
    shopVariant(join(temp.dir, 'fx-small'), {
      buildTime: '2026-03-02T11:00:00Z',
      mutate: (items) => items.slice(0, 2),
    }),
    join(temp.dir, 'node-small'),
  );
}, 60_000);
afterAll(async () => {
  await s3.stop();
  temp.cleanup();
});

async function readJson(target: PublishTarget, key: string): Promise<any> {
  const body = await target.get(key);
  return body ? JSON.parse(body.toString('utf8')) : undefined;
}

async function expectCode(promise: Promise<unknown>, code: string): Promise<AppError> {
  const error = await appErrorFrom(promise);
  expect(error.code).toBe(code);
  return error;
}

/** A copy of a compiled node with one file edited and its manifest entry (and node_version) to match. */
function tamperedCopy(from: string, to: string, file: string, change: (text: string) => string): string {
  rmSync(to, { recursive: true, force: true });
  cpSync(from, to, { recursive: true });
  const body = Buffer.from(change(readFileSync(join(to, file), 'utf8')));
  writeFileSync(join(to, file), body);
  const manifest = JSON.parse(readFileSync(join(to, 'manifest.json'), 'utf8'));
  const entry = manifest.files.find((f: { path: string }) => f.path === file);
  Object.assign(entry, { checksum: 'sha256:' + createHash('sha256').update(body).digest('hex'), bytes: body.length });
  if (entry.records !== undefined) entry.records = body.toString('utf8').split('\n').length - 1;
  manifest.node_version = '01KJP0000000000000000TAMPR';
  writeFileSync(join(to, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  return to;
}

describe.each(['fs', 's3'] as const)('publishing to %s', (kind) => {
  let target: PublishTarget;
  let db: Db;
  let first: PublishResult;
  let second: PublishResult;
  const keys = siteKeys(siteHashOf(SHOP_WEBSITE));
  const publish = (nodeDir: string, extra: Partial<Parameters<typeof publishNode>[0]> = {}) =>
    publishNode({
      target,
      nodeDir,
      websiteId: SHOP_WEBSITE,
      controlDb: db,
      nodeBaseUrl: 'http://127.0.0.1:8787/nodes',
      maxDrop: 0.5,
      now: () => NOW,
      ...extra,
    });

  beforeAll(async () => {
    const dataDir = join(temp.dir, `data-${kind}`);
    db = openControlDb(dataDirLayout(dataDir));
    target =
      kind === 'fs'
        ? createFsTarget({ root: join(dataDir, 'nodes') })
        : await createS3Target({
            bucket: s3.bucket,
            prefix: 'p',
            endpoint: s3.endpoint,
            forcePathStyle: true,
            accessKeyId: 'S3RVER',
            secretAccessKey: 'S3RVER',
          });
  });
  afterAll(async () => {
    await target.close();
    db.close();
  });

  it('refuses a node that fails validation, a uuid leak and a golden mismatch, writing nothing', async () => {
    const broken = join(temp.dir, `broken-${kind}`);
    rmSync(broken, { recursive: true, force: true });
    await compileFixtureTo(SHOP, broken);
    const entities = join(broken, 'entities.en.jsonl');
    writeFileSync(
      entities,
      readFileSync(entities, 'utf8').replace(/"id":"entity_[0-9a-f]+"/, '"id":"3f2b8c1e-9d4a-4b7e-8f21-0c5d6e7f8a9b"'),
    );
    await expectCode(publish(broken), 'node.uuid_leak');
    writeFileSync(join(broken, 'llms.txt'), 'tampered\n');
    await expectCode(
      compileFixtureTo(SHOP, broken).then(() => {
        writeFileSync(join(broken, 'ai.json'), '{}\n');
        return publish(broken);
      }),
      'publish.validation_failed',
    );
    const mismatch = await expectCode(publish(nodes.v2, { golden: SHOP_GOLDEN }), 'publish.golden_mismatch');
    expect((mismatch.details?.differences as Array<{ path: string }>).map((d) => d.path)).toContain('manifest.json');
    expect(await target.list(keys.root)).toEqual([]);
  });

  it('dry run reports every file as an upload and writes nothing', async () => {
    const dry = await publish(nodes.v1, { dryRun: true });
    expect(dry.dryRun).toBe(true);
    expect(dry.files.every((f) => f.state === 'uploaded')).toBe(true);
    expect(dry.versionLabel).toBe('2026-03-02.1');
    expect(await target.list(keys.root)).toEqual([]);
  });

  it('first publish: versions/<ulid>/ holds every file, cas/ the bytes, latest/ the serving copies, the pointer last', async () => {
    first = await publish(nodes.v1, { golden: SHOP_GOLDEN });
    const compiled = JSON.parse(readFileSync(join(nodes.v1, 'manifest.json'), 'utf8'));
    expect(first.versionUlid).toBe(compiled.node_version);
    expect(first.versionLabel).toBe('2026-03-02.1');
    expect(first.previousVersion).toBeNull();
    expect(first.files.every((f) => f.state === 'uploaded')).toBe(true);
    expect(first.cdnPath).toBe(`http://127.0.0.1:8787/nodes/${SHOP_DOMAIN}`);
    const pointer = await readJson(target, keys.pointer);
    expect(pointer.node_version).toBe(first.versionUlid);
    expect(pointer.node_version_label).toBe('2026-03-02.1');
    expect(
      (await target.get(keys.pointer))!.equals((await target.get(keys.version(first.versionUlid, 'manifest.json')))!),
    ).toBe(true);
    for (const f of pointer.files as Array<{
      path: string;
      checksum: string;
      content_type: string;
      immutable: boolean;
      bytes: number;
    }>) {
      const versioned = await target.head(keys.version(first.versionUlid, f.path));
      expect(versioned).toMatchObject({
        bytes: f.bytes,
        contentType: f.content_type,
        cacheControl: f.immutable ? IMMUTABLE_CACHE : MUTABLE_CACHE,
      });
      expect(await target.head(keys.latest(f.path))).toMatchObject({
        bytes: f.bytes,
        contentType: f.content_type,
        cacheControl: MUTABLE_CACHE,
      });
      const cas = await target.head(keys.cas(f.checksum.slice(7)));
      expect(cas).toMatchObject({ bytes: f.bytes, cacheControl: IMMUTABLE_CACHE });
    }
    expect(await target.head(keys.pointer)).toMatchObject({
      contentType: 'application/json',
      cacheControl: MUTABLE_CACHE,
    });
    if (kind === 'fs')
      expect(await readJson(target, `domains/${SHOP_DOMAIN}.json`)).toEqual({
        domain: SHOP_DOMAIN,
        website_id: SHOP_WEBSITE,
        site_hash: siteHashOf(SHOP_WEBSITE),
      });
    else
      expect((await target.get(`${SHOP_DOMAIN}/llms.txt`))!.equals((await target.get(keys.latest('llms.txt')))!)).toBe(
        true,
      );
    // openapi.json (business plan) echoes the store's label
    expect(
      (await readJson(target, keys.version(first.versionUlid, 'openapi.json'))).info['x-service-node-version'],
    ).toBe('2026-03-02.1');
  });

  it('the published version, patches included, passes validateNode', async () => {
    const copy = join(temp.dir, `published-${kind}`);
    rmSync(copy, { recursive: true, force: true });
    for (const key of await target.list(`${keys.versionsPrefix}${first.versionUlid}/`)) {
      const body = (await target.get(key))!;
      const { mkdirSync } = await import('node:fs');
      mkdirSync(copy, { recursive: true });
      writeFileSync(join(copy, key.split('/').pop()!), body);
    }
    const report = await validateNode(copy);
    expect(report.errors).toEqual([]);
    expect(report.nodeVersionLabel).toBe('2026-03-02.1');
  });

  it('republishing the live version is a no-op', async () => {
    const again = await publish(nodes.v1);
    expect(again.alreadyLive).toBe(true);
    expect(again.bytesUploaded).toBe(0);
    expect(again.objectsWritten).toBe(0);
  });

  it('a republish checks every changed file in full: a uuid or a dangling reference is refused, nothing written', async () => {
    const before = await target.list(keys.root);
    const leak = tamperedCopy(nodes.v2, join(temp.dir, `leak-${kind}`), 'chunks.en.jsonl', (t) =>
      t.replace(/"id":"chunk_[0-9a-f]+"/, '"id":"3f2b8c1e-9d4a-4b7e-8f21-0c5d6e7f8a9b"'),
    );
    await expectCode(publish(leak), 'node.uuid_leak');
    // an entity removed from a changed file leaves a fact of an unchanged file dangling
    const referenced = /"subject_entity_id":"(entity_[0-9a-f]+)"/.exec(
      readFileSync(join(nodes.v1, 'facts.en.jsonl'), 'utf8'),
    )![1]!;
    const dangling = tamperedCopy(nodes.v1, join(temp.dir, `dangling-${kind}`), 'entities.en.jsonl', (t) =>
      t
        .split('\n')
        .filter((l) => !l.includes(`"id":"${referenced}"`))
        .join('\n'),
    );
    const refused = await expectCode(publish(dangling), 'publish.validation_failed');
    expect(refused.details?.issues).toEqual(
      expect.arrayContaining([expect.objectContaining({ code: 'ref.dangling', file: 'facts.en.jsonl' })]),
    );
    const edited = tamperedCopy(nodes.v2, join(temp.dir, `edited-${kind}`), 'chunks.en.jsonl', (t) => t);
    writeFileSync(
      join(edited, 'chunks.en.jsonl'),
      readFileSync(join(edited, 'chunks.en.jsonl'), 'utf8').replace('"language":"en"', '"language":"de"'),
    );
    await expectCode(publish(edited), 'publish.validation_failed');
    expect(await target.list(keys.root)).toEqual(before);
    expect((await readJson(target, keys.pointer)).node_version).toBe(first.versionUlid);
  });

  it('second publish carries unchanged files forward, uploads the changed ones, patches versions.json and changes.jsonl', async () => {
    second = await publish(nodes.v2);
    expect(second.versionLabel).toBe('2026-03-02.2');
    expect(second.previousVersion).toBe(first.versionUlid);
    const firstChecksums = new Map(first.files.map((f) => [f.path, f.checksum]));
    for (const f of second.files)
      expect(f.state).toBe(firstChecksums.get(f.path) === f.checksum ? 'carried' : 'uploaded');
    expect(second.files.filter((f) => f.state === 'carried').length).toBeGreaterThan(0);
    expect(second.files.filter((f) => f.state === 'uploaded').length).toBeGreaterThan(0);
    expect(second.bytesCarried).toBeGreaterThan(0);
    const versions = await readJson(target, keys.latest('versions.json'));
    expect(versions).toMatchObject({
      current: { node_version: second.versionUlid, node_version_label: '2026-03-02.2' },
      previous: first.versionUlid,
    });
    expect(versions.history.map((h: { node_version: string }) => h.node_version)).toEqual([first.versionUlid]);
    const changes = (await target.get(keys.version(second.versionUlid, 'changes.jsonl')))!
      .toString()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const fileLines = changes.filter((c) => c.record_kind === 'file');
    const changed = second.changes.filter((c) => c.change === 'changed').map((c) => c.path);
    expect(changed.length).toBeGreaterThan(0);
    expect(fileLines.map((c) => c.record_id)).toEqual(
      second.changes.filter((c) => c.change !== 'unchanged').map((c) => c.path),
    );
    for (const line of fileLines)
      expect(line).toMatchObject({
        since_version: first.versionUlid,
        content_hash: expect.stringMatching(/^sha256:/),
        previous_content_hash: expect.stringMatching(/^sha256:/),
      });
    // the carried files were never uploaded again: one cas object per distinct checksum
    const cas = (await target.list(`${keys.root}cas/`)).length;
    expect(cas).toBe(new Set([...first.files, ...second.files].map((f) => f.checksum)).size);
    expect((await readJson(target, keys.pointer)).node_version).toBe(second.versionUlid);
  });

  it('the drop gate refuses a version with far fewer records unless allowDrop', async () => {
    const refused = await expectCode(publish(nodes.small), 'publish.drop_gate');
    expect(refused.details).toMatchObject({ maxDrop: 0.5 });
    expect((await readJson(target, keys.pointer)).node_version).toBe(second.versionUlid);
    const allowed = await publish(nodes.small, { allowDrop: true });
    expect(allowed.versionLabel).toBe('2026-03-02.3');
  });

  it('rollback flips latest/ back to a stored version; versions lists them newest first', async () => {
    const back = await rollbackNode({ target, controlDb: db, websiteId: SHOP_WEBSITE, to: first.versionUlid });
    expect(back.versionUlid).toBe(first.versionUlid);
    expect(
      (await target.get(keys.pointer))!.equals((await target.get(keys.version(first.versionUlid, 'manifest.json')))!),
    ).toBe(true);
    expect((await target.get(keys.latest('llms.txt')))!.equals(readFileSync(join(nodes.v1, 'llms.txt')))).toBe(true);
    const stored = await listStoredVersions(target, siteHashOf(SHOP_WEBSITE));
    expect(stored.map((v) => v.node_version_label)).toEqual(['2026-03-02.3', '2026-03-02.2', '2026-03-02.1']);
    expect(stored.filter((v) => v.live).map((v) => v.node_version)).toEqual([first.versionUlid]);
    await expectCode(
      rollbackNode({ target, controlDb: db, websiteId: SHOP_WEBSITE, to: '01ARZ3NDEKTSV4RRFFQ69G5FAV' }),
      'version.not_found',
    );
  });

  it('verify fails with publish.atomic_conflict when a manifest file is missing', async () => {
    const manifest = await readJson(target, keys.version(second.versionUlid, 'manifest.json'));
    await target.delete(keys.version(second.versionUlid, 'facts.en.jsonl'));
    await expectCode(
      verifyVersion(target, siteHashOf(SHOP_WEBSITE), manifest, { step() {}, advance() {}, stop() {} }),
      'publish.atomic_conflict',
    );
    await expectCode(
      rollbackNode({ target, controlDb: db, websiteId: SHOP_WEBSITE, to: second.versionUlid }),
      'publish.atomic_conflict',
    );
    expect((await readJson(target, keys.pointer)).node_version).toBe(first.versionUlid);
  });

  it('bug "a rollback to a purged version fails at verify with a misleading publish.atomic_conflict": it is refused up front with 409 publish.version_purged naming the purged files; a version marked for a purge is refused too', async () => {
    // `second` lost facts.en.jsonl above; a purge would have left this marker.
    await writePurgeMarker(target, SHOP_WEBSITE, second.versionUlid, {
      reason: 'gdpr_erasure',
      purged_at: '2026-03-02T12:30:00Z',
      files: ['facts.en.jsonl'],
    });
    const purged = await expectCode(
      rollbackNode({ target, controlDb: db, websiteId: SHOP_WEBSITE, to: second.versionUlid }),
      'publish.version_purged',
    );
    expect(purged).toMatchObject({
      status: 409,
      retryable: false,
      details: { version: second.versionUlid, purgedAt: '2026-03-02T12:30:00Z', files: ['facts.en.jsonl'] },
    });
    expect(purged.message).toMatch(
      /purged by a gdpr_erasure at 2026-03-02T12:30:00Z: 1 of its files \(facts\.en\.jsonl\) held erased items and were deleted for good, so it cannot be served again/,
    );
    // Marked before the republish of an erasure, purge still to run: its files are whole, but hold erased items.
    const third = (await listStoredVersions(target, siteHashOf(SHOP_WEBSITE)))[0]!.node_version;
    await markVersionsPurged(target, SHOP_WEBSITE, [third], () => NOW);
    const pending = await expectCode(
      rollbackNode({ target, controlDb: db, websiteId: SHOP_WEBSITE, to: third }),
      'publish.version_purged',
    );
    expect(pending.message).toMatch(/is marked for a gdpr_erasure purge/);
    expect((await readJson(target, keys.pointer)).node_version).toBe(first.versionUlid);
    for (const ulid of [second.versionUlid, third]) await target.delete(keys.version(ulid, 'purged.json'));
  });

  it('a held lock refuses a second publish with publish.conflict (retryable)', async () => {
    const lock = acquirePublishLock(db, SHOP_WEBSITE);
    const error = await expectCode(publish(nodes.v2), 'publish.conflict');
    expect(error.retryable).toBe(true);
    expect(error.status).toBe(409);
    lock.release();
  });

  it('takedown deletes the pointer and the serving copies, keeps versions; a second takedown is harmless', async () => {
    expect(await takeDownNode({ target, controlDb: db, websiteId: SHOP_WEBSITE, domain: SHOP_DOMAIN })).toMatchObject({
      tombstoned: true,
    });
    expect(await target.head(keys.pointer)).toBeUndefined();
    expect(await target.list(keys.latestPrefix)).toEqual([]);
    expect(await target.head(keys.tombstone)).toBeDefined();
    expect(await target.head(keys.version(first.versionUlid, 'manifest.json'))).toBeDefined();
    expect(await takeDownNode({ target, controlDb: db, websiteId: SHOP_WEBSITE, domain: SHOP_DOMAIN })).toMatchObject({
      tombstoned: true,
      removed: 0,
    });
    // publishing a version the store already holds brings it back as it was
    const small = JSON.parse(readFileSync(join(nodes.small, 'manifest.json'), 'utf8')).node_version;
    const back = await publish(nodes.small, { allowDrop: true });
    expect(back).toMatchObject({
      previousVersion: null,
      versionUlid: small,
      versionLabel: '2026-03-02.3',
      bytesUploaded: 0,
    });
    expect((await readJson(target, keys.pointer)).node_version).toBe(small);
    expect(await target.head(keys.tombstone)).toBeUndefined();
  });

  it('a new build of the live content keeps the live version and writes nothing; --force publishes it anew, re-copying only serving copies that differ', async () => {
    const live = await readJson(target, keys.pointer);
    const rebuilt = await compileFixtureTo(
      shopVariant(join(temp.dir, `fx-rebuilt-${kind}`), {
        buildTime: '2026-03-02T13:00:00Z',
        mutate: (items) => items.slice(0, 2),
      }),
      join(temp.dir, `node-rebuilt-${kind}`),
    );
    expect(JSON.parse(readFileSync(join(rebuilt, 'manifest.json'), 'utf8')).node_version).not.toBe(live.node_version);
    const before = await target.list(keys.root);
    const kept = await publish(rebuilt);
    expect(kept).toMatchObject({
      alreadyLive: true,
      versionUlid: live.node_version,
      previousVersion: live.node_version,
      bytesUploaded: 0,
      objectsWritten: 0,
    });
    expect(kept.changes.every((c) => c.change === 'unchanged')).toBe(true);
    expect(await target.list(keys.root)).toEqual(before);

    const forced = await publish(rebuilt, { force: true });
    expect(forced).toMatchObject({
      alreadyLive: false,
      previousVersion: live.node_version,
      versionLabel: '2026-03-02.4',
    });
    const liveChecksums = new Map(
      (live.files as Array<{ path: string; checksum: string }>).map((f) => [f.path, f.checksum]),
    );
    const uploaded = forced.files.filter((f) => f.state === 'uploaded').length;
    const differing = forced.files.filter((f) => liveChecksums.get(f.path) !== f.checksum).length;
    expect(differing).toBeGreaterThan(0); // versions.json at least
    // cas uploads + versions/<ulid>/ copies + its manifest + serving copies + alias/domain map, tombstone delete, pointer.
    // S3 keeps each object's sha256, so a serving copy that already holds the bytes is not copied again.
    const servingCopies = kind === 's3' ? 2 * differing : forced.files.length;
    expect(forced.objectsWritten).toBe(uploaded + forced.files.length + 1 + servingCopies + 3);
    await expectServingCopiesMatchPointer(target, kind, keys);
  });
});

/** Every serving copy (latest/, and the alias on S3) holds the bytes the pointer's manifest names. */
async function expectServingCopiesMatchPointer(
  target: PublishTarget,
  kind: 'fs' | 's3',
  keys: ReturnType<typeof siteKeys>,
): Promise<void> {
  const pointer = await readJson(target, keys.pointer);
  for (const f of pointer.files as Array<{ path: string; checksum: string }>) {
    const copies = [keys.latest(f.path), ...(kind === 's3' ? [`${SHOP_DOMAIN}/${f.path}`] : [])];
    for (const key of copies)
      expect(
        `sha256:${createHash('sha256')
          .update((await target.get(key))!)
          .digest('hex')}`,
        key,
      ).toBe(f.checksum);
  }
}

describe('publish lock', () => {
  it('expires, and a dead holder on this host is taken over at once', () => {
    const dir = makeTempDir('nodectl-lock-');
    const db = openControlDb(dataDirLayout(dir.dir));
    try {
      let now = 1_000_000;
      const a = acquirePublishLock(db, 'web_x', { now: () => now, ttlMs: 1000 });
      expect(() => acquirePublishLock(db, 'web_x', { now: () => now })).toThrow(/Another publish/);
      now += 1001;
      const b = acquirePublishLock(db, 'web_x', { now: () => now });
      a.release(); // a stale holder's release must not free b's lock
      expect(() => acquirePublishLock(db, 'web_x', { now: () => now })).toThrow(/Another publish/);
      b.release();
      db.prepare('INSERT INTO publish_locks (website_id, holder, expires_at) VALUES (?, ?, ?)').run(
        'web_y',
        `${hostname()}:999999999:x`,
        now + 60_000,
      );
      expect(acquirePublishLock(db, 'web_y', { now: () => now }).holder).toMatch(/:\d+:/);
      db.prepare('INSERT INTO publish_locks (website_id, holder, expires_at) VALUES (?, ?, ?)').run(
        'web_z',
        'another-host:1:x',
        now + 60_000,
      );
      expect(() => acquirePublishLock(db, 'web_z', { now: () => now })).toThrow(/Another publish/);
    } finally {
      db.close();
      dir.cleanup();
    }
  });
});
