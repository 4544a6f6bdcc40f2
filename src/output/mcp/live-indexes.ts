import { type LiveNode, KnowledgeIndex, readLiveNode } from '../knowledge/index.js';
import type { NodeStoreReader } from '../publish/index.js';

/** A live node and its search index, held by one request until it calls release(). */
export interface HeldIndex {
  readonly node: LiveNode;
  readonly index: KnowledgeIndex;
  release(): void;
}

interface Entry {
  readonly node: LiveNode;
  readonly index: KnowledgeIndex;
  users: number;
  retired: boolean;
}

/**
 * The search indexes of the live nodes the HTTP MCP endpoint answers from, one per website and
 * at most `max` websites (least recently used out). Stateless MCP builds a server per request,
 * so the index (every record of the node loaded into an in-memory database) is kept across
 * requests while the website's live version stays the same; each request reads the live
 * manifest first, so a publish, rollback, takedown or erasure is seen by the next request. An
 * index replaced or evicted is closed once no request holds it. `vectors: false` (embeddings off)
 * leaves the nodes' vectors unread.
 */
export function createLiveIndexes(
  store: () => Promise<NodeStoreReader>,
  { max = 16, vectors = true }: { max?: number; vectors?: boolean } = {},
) {
  const entries = new Map<string, Entry>();
  const loading = new Map<string, Promise<Entry | undefined>>();

  const retire = (entry: Entry) => {
    entry.retired = true;
    if (entry.users === 0) entry.index.close();
  };
  const hold = (entry: Entry): HeldIndex => {
    entry.users += 1;
    let released = false;
    return {
      node: entry.node,
      index: entry.index,
      release() {
        if (released) return;
        released = true;
        entry.users -= 1;
        if (entry.retired && entry.users === 0) entry.index.close();
      },
    };
  };

  async function load(websiteId: string): Promise<Entry | undefined> {
    const node = await readLiveNode(await store(), websiteId, { vectors });
    const previous = entries.get(websiteId);
    if (previous) {
      entries.delete(websiteId);
      retire(previous);
    }
    if (!node) return undefined;
    // The vectors live on in the index's database only: the entry keeps the records, not the float file.
    const { vectors: _vectors, ...records } = node;
    const entry: Entry = { node: records, index: new KnowledgeIndex(node), users: 0, retired: false };
    entries.set(websiteId, entry);
    for (const [id, old] of entries) {
      if (entries.size <= max) break;
      entries.delete(id);
      retire(old);
    }
    return entry;
  }

  /** The website's live node and index, held until release(); undefined when nothing is live. */
  async function acquire(websiteId: string): Promise<HeldIndex | undefined> {
    const manifest = await (await store()).liveManifest(websiteId);
    if (manifest === undefined) return undefined;
    const cached = entries.get(websiteId);
    if (cached && cached.node.manifest.node_version === manifest.node_version) {
      entries.delete(websiteId); // most recently used last
      entries.set(websiteId, cached);
      return hold(cached);
    }
    // One load per website at a time: concurrent first requests share it.
    let pending = loading.get(websiteId);
    if (!pending) {
      pending = load(websiteId).finally(() => loading.delete(websiteId));
      loading.set(websiteId, pending);
    }
    const entry = await pending;
    if (!entry) return undefined;
    // Replaced by a newer version while this request waited: read the live version again.
    return entry.retired ? acquire(websiteId) : hold(entry);
  }

  return {
    acquire,
    close(): void {
      for (const entry of entries.values()) retire(entry);
      entries.clear();
    },
  };
}
