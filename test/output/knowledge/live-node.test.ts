import { describe, expect, it } from 'vitest';
import { readLiveNode } from '../../../src/output/knowledge/live-node.js';
import type { NodeStoreReader } from '../../../src/output/publish/index.js';
import { NODE_SCHEMA_VERSION, type Manifest } from '../../../src/platform/node-format/index.js';

const VERSION = '01JV0000000000000000000000';
const chunkLine = (id: string, text: string) => JSON.stringify({ id, text, language: 'en' });

/** A store holding one live version made of `files`; manifest.json lists them in the given order. */
function storeOf(files: Record<string, Buffer | string>): NodeStoreReader {
  const manifest = {
    node_version: VERSION,
    files: Object.keys(files).map((path) => ({ path })),
  } as unknown as Manifest;
  return {
    liveManifest: async () => manifest,
    versionFile: async (_websiteId, version, path) => {
      expect(version).toBe(VERSION);
      const body = files[path];
      return body === undefined ? undefined : Buffer.from(body);
    },
  };
}

const embeddingsManifest = (overrides: Record<string, unknown> = {}) =>
  JSON.stringify({
    schema_version: NODE_SCHEMA_VERSION,
    status: 'computed',
    model: 'hash-bow',
    dimensions: 2,
    metric: 'cosine',
    vector_file: { path: 'embeddings.f32', format: 'float32-le', rows: 2 },
    chunk_files: [{ path: 'chunks.en.jsonl', language: 'en', records: 2 }],
    vectors: [
      { chunk_id: 'chunk_0000000a', row: 0 },
      { chunk_id: 'chunk_0000000b', row: 1 },
    ],
    ...overrides,
  });
const f32 = (...values: number[]) => {
  const body = Buffer.alloc(values.length * 4);
  values.forEach((v, i) => body.writeFloatLE(v, i * 4));
  return body;
};
const CHUNKS = `${chunkLine('chunk_0000000a', 'cheap flights')}\n${chunkLine('chunk_0000000b', 'coffee grinder')}\n`;

describe('readLiveNode and the vectors a node carries', () => {
  it('reads embeddings.f32 with its manifest when the embeddings manifest is computed', async () => {
    const data = f32(1, 0.5, -1, 0.25);
    const node = await readLiveNode(
      storeOf({
        'chunks.en.jsonl': CHUNKS,
        'embeddings-manifest.json': embeddingsManifest(),
        'embeddings.f32': data,
      }),
      'web_a',
    );
    expect(node!.chunks.map((c) => c.id)).toEqual(['chunk_0000000a', 'chunk_0000000b']);
    expect(node!.vectors).toEqual({
      model: 'hash-bow',
      dimensions: 2,
      chunkIds: ['chunk_0000000a', 'chunk_0000000b'],
      data,
    });
  });

  it('leaves the vectors unread with vectors: false', async () => {
    const files = { 'chunks.en.jsonl': CHUNKS, 'embeddings-manifest.json': '{not json', 'embeddings.f32': f32(1) };
    const node = await readLiveNode(storeOf(files), 'web_a', { vectors: false });
    expect(node!.chunks).toHaveLength(2);
    expect(node!.vectors).toBeUndefined();
    await expect(readLiveNode(storeOf(files), 'web_a')).rejects.toThrow(
      /^embeddings-manifest.json of the live node \w+ is not JSON: /,
    );
  });

  it('carries no vectors when the embeddings manifest is not_computed or absent', async () => {
    const notComputed = JSON.stringify({
      schema_version: NODE_SCHEMA_VERSION,
      status: 'not_computed',
      model: null,
      dimensions: null,
      chunk_files: [{ path: 'chunks.en.jsonl', language: 'en', records: 2 }],
      vectors: [],
    });
    const node = await readLiveNode(
      storeOf({ 'chunks.en.jsonl': CHUNKS, 'embeddings-manifest.json': notComputed }),
      'web_a',
    );
    expect(node!.chunks).toHaveLength(2);
    expect(node!.vectors).toBeUndefined();
    expect((await readLiveNode(storeOf({ 'chunks.en.jsonl': CHUNKS }), 'web_a'))!.vectors).toBeUndefined();
  });

  it('refuses a vector file that does not match its manifest, or one the store lacks', async () => {
    const read = (files: Record<string, Buffer | string>) => readLiveNode(storeOf(files), 'web_a');
    await expect(
      read({ 'embeddings-manifest.json': embeddingsManifest(), 'embeddings.f32': f32(1, 2, 3) }),
    ).rejects.toThrow(/embeddings.f32 of the live node .* holds 12 bytes and 2 listed chunks; .* 2 rows of 2 float32/);
    await expect(read({ 'embeddings-manifest.json': embeddingsManifest() })).rejects.toThrow(
      `the live node ${VERSION} lacks embeddings.f32 in the store`,
    );
    await expect(
      read({ 'embeddings-manifest.json': embeddingsManifest({ metric: 'dot' }), 'embeddings.f32': f32(1, 2, 3, 4) }),
    ).rejects.toThrow(/embeddings-manifest.json of the live node .* fails its schema/);
  });
});
