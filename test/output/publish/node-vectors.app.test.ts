import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileToDirectory, loadFixture } from '../../../src/compiler/index.js';
import { publishNode, siteHashOf, siteKeys, type PublishTarget } from '../../../src/output/publish/index.js';
import { createFsTarget } from '../../../src/output/publish/targets/fs.js';
import { openControlDb } from '../../../src/platform/storage/control.js';
import { dataDirLayout } from '../../../src/platform/storage/data-dir.js';
import type { Db } from '../../../src/platform/storage/sqlite.js';
import { makeTempDir } from '../../helpers/paths.js';
import { EMBEDDINGS, fixtureGraph, seedVectors } from '../../compiler/vector-support.js';
import { changeLastItem, SHOP, SHOP_WEBSITE, shopVariant } from './support.js';

const temp = makeTempDir('nodectl-publish-vectors-');
let db: Db;
let target: PublishTarget;
const keys = siteKeys(siteHashOf(SHOP_WEBSITE));

/** Compiles a fixture with a vector seeded for every chunk (the same vector for the same chunk id). */
async function compileWithVectors(
  fixtureDir: string,
  outDir: string,
  seed: Parameters<typeof seedVectors>[1] = {},
): Promise<string> {
  const fixture = loadFixture(fixtureDir);
  const graph = fixtureGraph(fixture);
  try {
    seedVectors(graph.db, seed);
    await compileToDirectory(graph.reader, fixture.site, outDir, {
      ...fixture.presentation,
      buildTime: fixture.buildTime,
      embeddings: EMBEDDINGS,
    });
  } finally {
    graph.close();
  }
  return outDir;
}

beforeAll(() => {
  const dataDir = join(temp.dir, 'data');
  db = openControlDb(dataDirLayout(dataDir));
  target = createFsTarget({ root: join(dataDir, 'nodes') });
});
afterAll(async () => {
  await target.close();
  db.close();
  temp.cleanup();
});

const publish = (nodeDir: string) =>
  publishNode({
    target,
    nodeDir,
    websiteId: SHOP_WEBSITE,
    controlDb: db,
    nodeBaseUrl: 'http://127.0.0.1:8787/nodes',
    maxDrop: 0.5,
    now: () => Date.parse('2026-03-02T12:00:00Z'),
  });

describe('publishing a node with vectors', () => {
  it('uploads embeddings.f32 once and carries it forward unchanged when the vectors are the same', async () => {
    const v1 = await compileWithVectors(SHOP, join(temp.dir, 'node-v1'));
    const changed = shopVariant(join(temp.dir, 'fx-v2'), {
      buildTime: '2026-03-02T10:00:00Z',
      mutate: changeLastItem,
    });
    const v2 = await compileWithVectors(changed, join(temp.dir, 'node-v2'));
    const f32 = readFileSync(join(v1, 'embeddings.f32'));
    // Another item changed, the vectors did not.
    expect(readFileSync(join(v2, 'embeddings.f32')).equals(f32)).toBe(true);

    const first = await publish(v1);
    expect(first.files.find((f) => f.path === 'embeddings.f32')).toMatchObject({ state: 'uploaded', immutable: true });
    const second = await publish(v2);
    expect(second.previousVersion).toBe(first.versionUlid);
    expect(second.files.find((f) => f.path === 'embeddings.f32')).toMatchObject({
      state: 'carried',
      bytes: f32.length,
    });
    expect(second.files.some((f) => f.state === 'uploaded')).toBe(true);
    expect(second.changes.find((c) => c.path === 'embeddings.f32')?.change).toBe('unchanged');
    // The store serves the same bytes under the new version, from one cas object.
    expect((await target.get(keys.version(second.versionUlid, 'embeddings.f32')))!.equals(f32)).toBe(true);
    const live = JSON.parse((await target.get(keys.version(second.versionUlid, 'manifest.json')))!.toString('utf8'));
    expect(live.files.find((f: { path: string }) => f.path === 'embeddings.f32').checksum).toBe(
      first.files.find((f) => f.path === 'embeddings.f32')!.checksum,
    );
    const cas = (await target.list(`${keys.root}cas/`)).length;
    expect(cas).toBe(new Set([...first.files, ...second.files].map((f) => f.checksum)).size);

    // One vector less (its chunk's text changed since it was embedded): the file is sent again.
    const stale = JSON.parse(readFileSync(join(v2, 'embeddings-manifest.json'), 'utf8')).vectors[0].chunk_id;
    const v3 = await compileWithVectors(
      shopVariant(join(temp.dir, 'fx-v3'), { buildTime: '2026-03-02T11:00:00Z', mutate: changeLastItem }),
      join(temp.dir, 'node-v3'),
      { stale: [stale] },
    );
    const third = await publish(v3);
    expect(third.files.find((f) => f.path === 'embeddings.f32')).toMatchObject({
      state: 'uploaded',
      bytes: f32.length - 8 * 4,
    });
    expect(third.changes.find((c) => c.path === 'embeddings.f32')?.change).toBe('changed');
    expect((await target.get(keys.version(third.versionUlid, 'embeddings.f32')))!.equals(f32.subarray(32))).toBe(true);
  });
});
