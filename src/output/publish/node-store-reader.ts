import type { Manifest } from '../../platform/node-format/index.js';
import { siteHashOf, siteKeys } from './layout.js';
import { readLiveManifest } from './store.js';
import type { PublishTarget } from './targets/types.js';

/**
 * How the readers of a published node (knowledge search, previews, MCP) see the store: a
 * website's live manifest and the files of one of its versions, by website id. They never learn
 * the store's key layout, which stays the publisher's.
 */
export interface NodeStoreReader {
  /** The live version's manifest; undefined when nothing is published (or the node was taken down). */
  liveManifest(websiteId: string): Promise<Manifest | undefined>;
  /** A file of an immutable version; undefined when the store lacks it. */
  versionFile(websiteId: string, version: string, path: string): Promise<Buffer | undefined>;
}

export function nodeStoreReader(target: Pick<PublishTarget, 'get'>): NodeStoreReader {
  return {
    liveManifest: (websiteId) => readLiveManifest(target, siteHashOf(websiteId)),
    versionFile: (websiteId, version, path) => target.get(siteKeys(siteHashOf(websiteId)).version(version, path)),
  };
}
