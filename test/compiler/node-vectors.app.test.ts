import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compileToDirectory, loadFixture, validateNode, type CompileOptions } from '../../src/compiler/index.js';
import { chunkTextHash } from '../../src/compiler/compile-node.js';
import type { NodeSink } from '../../src/compiler/index.js';
import { WrittenNodeCheck } from '../../src/compiler/validate/written-node.js';
import { ParallelWrittenNodeCheck, writtenCheckWorkerUrl } from '../../src/compiler/validate/written-node-thread.js';
import { textHashOf } from '../../src/ingest/embeddings/index.js';
import { ThreadedGraphReader } from '../../src/ingest/graph/index.js';
import { makeTempDir } from '../helpers/paths.js';
import { DIMENSIONS, EMBEDDINGS, fixtureGraph, MODEL, rowsOf, seedVectors, vectorOf } from './vector-support.js';

const SHOP = join(__dirname, '../../fixtures/shop');
const GOLDEN = join(__dirname, '../../golden/shop');
const fixture = loadFixture(SHOP);
const temp = makeTempDir('nodectl-node-vectors-');
afterAll(() => temp.cleanup());

/** Compiles the shop fixture's graph with vectors seeded by `seed` into `name`. */
async function compileShop(
  name: string,
  seed: Parameters<typeof seedVectors>[1] | null,
  options: Partial<CompileOptions> = { embeddings: EMBEDDINGS },
  file?: string,
): Promise<{ dir: string; seeded: string[] }> {
  const graph = fixtureGraph(fixture, file);
  try {
    const seeded = seed === null ? [] : seedVectors(graph.db, seed);
    const dir = join(temp.dir, name);
    const compileOptions = { ...fixture.presentation, buildTime: fixture.buildTime, ...options };
    if (file === undefined) await compileToDirectory(graph.reader, fixture.site, dir, compileOptions);
    else {
      const reader = await ThreadedGraphReader.open(file);
      try {
        await compileToDirectory(reader, fixture.site, dir, compileOptions);
      } finally {
        await reader.close();
      }
    }
    return { dir, seeded };
  } finally {
    graph.close();
  }
}

const read = (dir: string, path: string) => readFileSync(join(dir, path));
const json = (dir: string, path: string) => JSON.parse(read(dir, path).toString('utf8'));

describe('the node carries the chunk vectors (issue 39 item 4)', () => {
  it('hashes a chunk text as the embeddings job stores it', () => {
    for (const text of ['', 'A blue mug.', 'Kaffee für Hamburg ☕'])
      expect(chunkTextHash(text)).toBe(textHashOf(text).toString('hex'));
  });

  it('writes embeddings.f32 in chunk order with a computed manifest, checksummed in manifest.json', async () => {
    const { dir, seeded } = await compileShop('computed', {});
    const embeddings = json(dir, 'embeddings-manifest.json');
    // Rows: the chunk files in order, each by id.
    const chunkIds = (embeddings.chunk_files as Array<{ path: string }>).flatMap(({ path }) =>
      read(dir, path)
        .toString('utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).id as string),
    );
    expect(embeddings.chunk_files.length).toBeGreaterThan(1);
    expect(seeded.length).toBeGreaterThan(3);
    expect([...chunkIds].sort()).toEqual(seeded);
    expect(embeddings).toMatchObject({
      status: 'computed',
      model: MODEL,
      dimensions: DIMENSIONS,
      metric: 'cosine',
      vector_file: { path: 'embeddings.f32', format: 'float32-le', rows: chunkIds.length },
    });
    expect(embeddings.vectors).toEqual(chunkIds.map((chunk_id, row) => ({ chunk_id, row })));
    const body = read(dir, 'embeddings.f32');
    expect(body.length).toBe(chunkIds.length * DIMENSIONS * 4);
    rowsOf(body).forEach((row, i) => expect(row).toEqual(vectorOf(chunkIds[i]!)));
    const entry = json(dir, 'manifest.json').files.find((f: { path: string }) => f.path === 'embeddings.f32');
    expect(entry).toEqual({
      path: 'embeddings.f32',
      content_type: 'application/octet-stream',
      checksum: 'sha256:' + createHash('sha256').update(body).digest('hex'),
      bytes: body.length,
      immutable: true,
      produced_by: 'nodectl:embeddings',
    });
    const report = await validateNode(dir);
    expect(report.errors).toEqual([]);
    expect(report.warnings).toEqual([]);
  });

  it('gives the same bytes from the same vectors, through the reading thread too', async () => {
    const a = await compileShop('same-a', {});
    const b = await compileShop('same-b', {});
    const threaded = await compileShop('same-thread', {}, undefined, join(temp.dir, 'graph-thread.sqlite'));
    const manifest = json(a.dir, 'manifest.json');
    for (const other of [b.dir, threaded.dir]) {
      expect(json(other, 'manifest.json')).toEqual(manifest);
      for (const f of manifest.files as Array<{ path: string }>)
        expect(read(other, f.path).equals(read(a.dir, f.path)), f.path).toBe(true);
    }
  });

  it('leaves out vectors of a changed text or another model, and lists only the chunks that have one', async () => {
    const all = await compileShop('all', {});
    const ids = json(all.dir, 'embeddings-manifest.json').vectors.map((v: { chunk_id: string }) => v.chunk_id);
    const { dir } = await compileShop('partial', { stale: [ids[1]], only: ids.length - 1 });
    const embeddings = json(dir, 'embeddings-manifest.json');
    const kept = ids.slice(0, -1).filter((id: string) => id !== ids[1]);
    expect(embeddings.vectors).toEqual(kept.map((chunk_id: string, row: number) => ({ chunk_id, row })));
    rowsOf(read(dir, 'embeddings.f32')).forEach((row, i) => expect(row).toEqual(vectorOf(kept[i]!)));
    expect((await validateNode(dir)).ok).toBe(true);
    // Vectors of another model only: nothing to carry.
    const other = await compileShop('other-model', { model: 'other@8' });
    expect(json(other.dir, 'embeddings-manifest.json')).toMatchObject({ status: 'not_computed', vectors: [] });
  });

  it('without vectors, or with embeddings off, writes the golden files byte for byte', async () => {
    const off = await compileShop('off', {}, {});
    const none = await compileShop('none', null);
    const golden = JSON.parse(readFileSync(join(GOLDEN, 'manifest.json'), 'utf8'));
    for (const dir of [off.dir, none.dir]) {
      expect(json(dir, 'manifest.json').files).toEqual(golden.files);
      expect(read(dir, 'embeddings-manifest.json').equals(readFileSync(join(GOLDEN, 'embeddings-manifest.json')))).toBe(
        true,
      );
      expect(() => read(dir, 'embeddings.f32')).toThrow();
    }
  });

  it('a plan without cap.embeddings carries no vectors', async () => {
    const graph = fixtureGraph(fixture);
    try {
      seedVectors(graph.db);
      const dir = join(temp.dir, 'pro');
      await compileToDirectory(graph.reader, { ...fixture.site, plan: 'pro' }, dir, {
        ...fixture.presentation,
        buildTime: fixture.buildTime,
        embeddings: EMBEDDINGS,
      });
      expect(json(dir, 'manifest.json').files.map((f: { path: string }) => f.path)).not.toContain('embeddings.f32');
    } finally {
      graph.close();
    }
  });

  it('refuses a truncated vector file, and a manifest whose rows do not fit the file', async () => {
    const { dir } = await compileShop('truncated', {});
    const body = read(dir, 'embeddings.f32');
    writeFileSync(join(dir, 'embeddings.f32'), body.subarray(0, body.length - 4));
    const truncated = await validateNode(dir);
    expect(truncated.ok).toBe(false);
    expect(truncated.errors.map((e) => e.code)).toEqual(
      expect.arrayContaining(['file.bytes_mismatch', 'file.checksum_mismatch']),
    );
    // The manifest made to match the short file: the rows no longer fit it.
    const short = body.subarray(0, body.length - DIMENSIONS * 4 - 4);
    writeFileSync(join(dir, 'embeddings.f32'), short);
    const manifest = json(dir, 'manifest.json');
    Object.assign(
      manifest.files.find((f: { path: string }) => f.path === 'embeddings.f32'),
      { bytes: short.length, checksum: 'sha256:' + createHash('sha256').update(short).digest('hex') },
    );
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
    const mismatch = await validateNode(dir);
    expect(mismatch.errors.map((e) => e.code)).toEqual(['embeddings.size_mismatch']);
    expect(mismatch.errors[0]!.file).toBe('embeddings-manifest.json');
  });

  it("passes a publish's check of the bytes as written, in the compiling thread and in a worker", async () => {
    const checks = [
      (out: string) => new WrittenNodeCheck(out, { recordsPassedSchemas: true }),
      (out: string) =>
        new ParallelWrittenNodeCheck(out, {
          recordsPassedSchemas: true,
          handoverBytes: 0,
          maxQueuedChunks: 2,
          workerUrl: writtenCheckWorkerUrl(),
        }),
    ];
    for (const [i, makeCheck] of checks.entries()) {
      const graph = fixtureGraph(fixture);
      const out = join(temp.dir, `written-${i}`);
      const check = makeCheck(out);
      try {
        seedVectors(graph.db);
        await compileToDirectory(graph.reader, fixture.site, out, {
          ...fixture.presentation,
          buildTime: fixture.buildTime,
          embeddings: EMBEDDINGS,
          wrapSink: (sink: NodeSink) => check.sink(sink),
        });
        const report = await check.report();
        expect(report.errors).toEqual([]);
        expect(report.files).toBe(json(out, 'manifest.json').files.length + 1);
        expect(json(out, 'embeddings-manifest.json').status).toBe('computed');
      } finally {
        graph.close();
        if (check instanceof ParallelWrittenNodeCheck) await check.close();
      }
    }
  });
});
