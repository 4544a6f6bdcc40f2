import { describe, expect, it } from 'vitest';
import { createLiveIndexes } from '../../../src/output/mcp/live-indexes.js';
import type { NodeStoreReader } from '../../../src/output/publish/index.js';
import type { Manifest } from '../../../src/platform/node-format/index.js';

/** A store holding one live version per website, each with one entity named after its version. */
function fakeStore() {
  const live = new Map<string, string>();
  let reads = 0;
  const manifest = (websiteId: string, version: string) =>
    ({
      node_version: version,
      domain: `${websiteId}.example`,
      files: [{ path: 'entities.en.jsonl' }],
    }) as unknown as Manifest;
  const reader: NodeStoreReader = {
    liveManifest: async (websiteId) => {
      const version = live.get(websiteId);
      return version === undefined ? undefined : manifest(websiteId, version);
    },
    versionFile: async (_websiteId, version) => {
      reads += 1;
      return Buffer.from(
        `${JSON.stringify({ id: 'entity_0a', type: 'Thing', name: `Name ${version}`, language: 'en' })}\n`,
      );
    },
  };
  return { reader, live, reads: () => reads };
}

describe('the live indexes of the HTTP MCP endpoint', () => {
  it('keeps one index per live version, serves a new version at once and closes the old when released', async () => {
    const store = fakeStore();
    const indexes = createLiveIndexes(async () => store.reader);
    store.live.set('web_a', 'V1');
    const first = (await indexes.acquire('web_a'))!;
    const again = (await indexes.acquire('web_a'))!;
    expect(again.index).toBe(first.index);
    expect(store.reads()).toBe(1);

    store.live.set('web_a', 'V2');
    const second = (await indexes.acquire('web_a'))!;
    expect(second.node.manifest.node_version).toBe('V2');
    expect(second.index.entity('entity_0a')?.name).toBe('Name V2');
    // The old index still answers the requests that hold it, and closes after the last release.
    expect(first.index.search('name', 5).length).toBe(1);
    first.release();
    expect(again.index.search('name', 5).length).toBe(1);
    again.release();
    expect(() => first.index.search('name', 5)).toThrow();
    second.release();
    indexes.close();
    expect(() => second.index.search('name', 5)).toThrow();
  });

  it('answers undefined once the website has no live node (taken down), and shares one load between concurrent requests', async () => {
    const store = fakeStore();
    const indexes = createLiveIndexes(async () => store.reader);
    expect(await indexes.acquire('web_none')).toBeUndefined();
    store.live.set('web_b', 'V1');
    const [a, b] = await Promise.all([indexes.acquire('web_b'), indexes.acquire('web_b')]);
    expect(a!.index).toBe(b!.index);
    expect(store.reads()).toBe(1);
    a!.release();
    b!.release();
    store.live.delete('web_b');
    expect(await indexes.acquire('web_b')).toBeUndefined();
    indexes.close();
  });

  it('keeps at most `max` websites, the least recently used out', async () => {
    const store = fakeStore();
    const indexes = createLiveIndexes(async () => store.reader, { max: 2 });
    for (const id of ['web_1', 'web_2', 'web_3']) store.live.set(id, 'V1');
    for (const id of ['web_1', 'web_2', 'web_1', 'web_3']) (await indexes.acquire(id))!.release();
    expect(store.reads()).toBe(3);
    (await indexes.acquire('web_1'))!.release(); // still held: used after web_2
    expect(store.reads()).toBe(3);
    (await indexes.acquire('web_2'))!.release(); // evicted by web_3: read again
    expect(store.reads()).toBe(4);
    indexes.close();
  });
});
