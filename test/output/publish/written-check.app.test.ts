import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compileToDirectory, loadFixture, type NodeSink } from '../../../src/compiler/index.js';
import { validateNode } from '../../../src/compiler/validate/validate-node.js';
import { resolveConfig } from '../../../src/platform/config/config.js';
import { AppError } from '../../../src/platform/errors/app-error.js';
import { buildGraphFromItems } from '../../../src/ingest/graph/build-from-items.js';
import type { Manifest } from '../../../src/platform/node-format/index.js';
import { refuseInvalidNode } from '../../../src/output/publish/integrity.js';
import { runPublish } from '../../../src/output/publish/run-publish.js';
import { readLiveManifest } from '../../../src/output/publish/store.js';
import { siteHashOf } from '../../../src/output/publish/layout.js';
import { createFsTarget } from '../../../src/output/publish/targets/fs.js';
import { openControlDb } from '../../../src/platform/storage/control.js';
import { dataDirLayout } from '../../../src/platform/storage/data-dir.js';
import { alteredSink } from '../../compiler/helpers.js';
import { makeTempDir } from '../../helpers/paths.js';
import { SHOP, SHOP_WEBSITE } from './support.js';

const temp = makeTempDir('nodectl-publish-written-');
afterAll(() => temp.cleanup());
let runs = 0;

type Change = Record<string, (text: string) => string>;

/**
 * A publish of the shop fixture whose compiled files get `change` as they are written (runPublish's
 * test seam). `afterLive`: a clean version is published first, so the altered one compiles against it.
 */
async function publishAltered(change: Change, afterLive = false) {
  const dataDir = join(temp.dir, `data-${++runs}`);
  const settings = resolveConfig({ env: { NODECTL_DATA_DIR: dataDir } }).settings;
  const db = openControlDb(dataDirLayout(dataDir));
  const target = createFsTarget({ root: join(dataDir, 'nodes') });
  try {
    const first = afterLive
      ? await runPublish({ settings, controlDb: db, target, source: { kind: 'fixture', dir: SHOP } })
      : undefined;
    const error = await runPublish({
      settings,
      controlDb: db,
      target,
      source: { kind: 'fixture', dir: SHOP },
      ...(afterLive ? { force: true, buildTime: '2026-06-01T00:00:00Z' } : {}),
      alterCompiledFiles: (sink: NodeSink) => alteredSink(sink, change),
    }).then(
      () => null,
      (e: unknown) => e,
    );
    if (first !== undefined)
      expect((await readLiveManifest(target, siteHashOf(SHOP_WEBSITE)))?.node_version).toBe(first.versionUlid);
    return {
      error,
      live: await readLiveManifest(target, siteHashOf(SHOP_WEBSITE)),
      workLeft: readdirSync(join(dataDir, 'tmp')),
    };
  } finally {
    await target.close();
    db.close();
  }
}

/** What the publish said before it checked its compile as written: validateNode on the compiled folder (line schemas not run again). */
async function refusalOfFolder(change: Change): Promise<AppError> {
  const out = join(temp.dir, `folder-${++runs}`);
  const fixture = loadFixture(SHOP);
  const graph = buildGraphFromItems(fixture.items, fixture.site, {
    receivedAt: fixture.buildTime,
    editorial: fixture.editorial,
  });
  try {
    await compileToDirectory(graph.reader, fixture.site, out, {
      ...fixture.presentation,
      buildTime: fixture.buildTime,
      wrapSink: (sink: NodeSink) => alteredSink(sink, change),
    });
  } finally {
    graph.close();
  }
  try {
    refuseInvalidNode(await validateNode(out, { recordsPassedSchemas: true }), out);
  } catch (error) {
    return error as AppError;
  }
  throw new Error('the folder passed validation');
}

const defects: Array<[string, Change, string, string]> = [
  [
    'a broken record',
    { 'facts.en.jsonl': (t) => t.replace(/\}\n/, '\n') },
    'publish.validation_failed',
    'json.invalid',
  ],
  [
    'a uuid leak',
    { 'entities.de.jsonl': (t) => t.replace(/"id":"entity_[0-9a-f]+"/, '"id":"3f2504e0-4f89-11d3-9a0c-0305e82c3301"') },
    'node.uuid_leak',
    'node.uuid_leak',
  ],
  [
    'an internal field',
    {
      'chunks.en.jsonl': (t) =>
        t.replace('"schema_version":"1.0.0"', '"schema_version":"1.0.0","editorial_status":"approved"'),
    },
    'publish.validation_failed',
    'export.internal_field',
  ],
  [
    'a broken reference',
    { 'qa.en.jsonl': (t) => t.replace(/"fact_ids":\["fact_[0-9a-f]+"/, '"fact_ids":["fact_000000000000000000000000"') },
    'publish.validation_failed',
    'ref.dangling',
  ],
  [
    'a checksum mismatch',
    {
      'manifest.json': (t) =>
        t.replace(
          /("path": "sources.jsonl",\n\s+"content_type": "[^"]+",\n\s+"checksum": "sha256:)[0-9a-f]{4}/,
          '$1ffff',
        ),
    },
    'publish.validation_failed',
    'file.checksum_mismatch',
  ],
];

describe('a publish\'s own compile is checked as it is written (docs/publishing.md "Gates")', () => {
  it.each(defects)(
    'refuses %s put into the compiled files, as validating the folder refused it, and publishes nothing',
    async (_, change, code, issue) => {
      const { error, live, workLeft } = await publishAltered(change);
      expect(error).toBeInstanceOf(AppError);
      const refused = error as AppError;
      expect(refused.code).toBe(code);
      expect((refused.details as { issues: Array<{ code: string }> }).issues[0]!.code).toBe(issue);
      const before = await refusalOfFolder(change);
      expect(refused.code).toBe(before.code);
      expect(refused.details).toEqual(before.details);
      const withoutFolder = (message: string) =>
        message.replace(/`nodectl validate [^`]+`/, '`nodectl validate <node>`');
      expect(withoutFolder(refused.message)).toBe(withoutFolder(before.message));
      expect(live).toBeUndefined();
      expect(workLeft).toEqual([]);
    },
    60_000,
  );

  it('refuses a checksum mismatch in a compile against the live version (checked from the records written), and keeps the live version', async () => {
    const [, change] = defects.find(([name]) => name === 'a checksum mismatch')!;
    const { error } = await publishAltered(change, true);
    expect((error as AppError).code).toBe('publish.validation_failed');
    expect(((error as AppError).details as { issues: Array<{ code: string; file: string }> }).issues).toEqual([
      expect.objectContaining({ code: 'file.checksum_mismatch', file: 'sources.jsonl' }),
    ]);
  }, 60_000);

  it('publishes the unchanged compile (the seam changes nothing by itself)', async () => {
    const { error, live } = await publishAltered({});
    expect(error).toBeNull();
    expect(live?.website_id).toBe(SHOP_WEBSITE);
  }, 60_000);
});

describe('a compiled folder given to publish (--node) is read back and checked in full', () => {
  it('refuses a record that fails only its line schema (the manifest names its bytes)', async () => {
    const dir = join(temp.dir, 'given');
    const fixture = loadFixture(SHOP);
    const graph = buildGraphFromItems(fixture.items, fixture.site, {
      receivedAt: fixture.buildTime,
      editorial: fixture.editorial,
    });
    try {
      await compileToDirectory(graph.reader, fixture.site, dir, {
        ...fixture.presentation,
        buildTime: fixture.buildTime,
      });
    } finally {
      graph.close();
    }
    const body = Buffer.from(
      readFileSync(join(dir, 'chunks.en.jsonl'), 'utf8').replace(
        '"schema_version":"1.0.0"',
        '"schema_version":"1.0.0","extra":1',
      ),
    );
    writeFileSync(join(dir, 'chunks.en.jsonl'), body);
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Manifest;
    Object.assign(
      manifest.files.find((f) => f.path === 'chunks.en.jsonl')!,
      { checksum: 'sha256:' + createHash('sha256').update(body).digest('hex'), bytes: body.length },
    );
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
    const dataDir = join(temp.dir, 'data-given');
    const settings = resolveConfig({ env: { NODECTL_DATA_DIR: dataDir } }).settings;
    const db = openControlDb(dataDirLayout(dataDir));
    const target = createFsTarget({ root: join(dataDir, 'nodes') });
    try {
      const error = await runPublish({ settings, controlDb: db, target, source: { kind: 'node', dir } }).then(
        () => null,
        (e: unknown) => e as AppError,
      );
      expect(error?.code).toBe('publish.validation_failed');
      expect((error?.details as { issues: Array<{ code: string; file: string }> }).issues).toEqual([
        expect.objectContaining({ code: 'schema.invalid', file: 'chunks.en.jsonl' }),
      ]);
    } finally {
      await target.close();
      db.close();
    }
  }, 60_000);
});
