/**
 * Publishing: a compiled node into a store (fs or S3) with the atomic sequence, rollback,
 * takedown, version listing, and the reader the daemon serves node files with.
 */
export { publishNode, type PublishNodeOptions, type PublishResult, type PublishedFile } from './publish-node.js';
export { runPublish, readLivePrevious, type RunPublishOptions, type PublishSource } from './run-publish.js';
export { rollbackNode, takeDownNode, flipToStoredVersion, type FlipResult } from './rollback.js';
export { listStoredVersions, readLiveManifest, nextVersionLabel, recordCount, type StoredVersion } from './store.js';
export { acquirePublishLock, PUBLISH_LOCK_TTL_MS, type PublishLock } from './lock.js';
export { siteHashOf, siteKeys, MUTABLE_CACHE, IMMUTABLE_CACHE } from './layout.js';
export { createLocalNodeReader, type NodeFileLookup } from './read-node.js';
export { createTargetFromSettings } from './targets/index.js';
export type { PublishTarget, PutOptions, ObjectInfo } from './targets/types.js';
export { PUBLISH_STEPS, type PublishStep } from './faults.js';
export { eraseWebsiteNode } from './erase-website.js';
export { listWebsiteVersions } from './present.js';
export { createInkPublishProgress, createPlainPublishProgress, formatCompileLine } from './progress-view.js';
export {
  trackPublishProgress,
  type PublishProgress,
  type PublishProgressEvent,
  type PublishProgressView,
} from './progress.js';
export { hasPublishedNode, republishJob, requestRepublish } from './republish-job.js';
export { publishRoutes } from './routes.js';
export type {
  PublishProgressEventSchema,
  PublishRequestSchema,
  PublishResultSchema,
  PublishedVersionSchema,
  PublishedVersionView,
  RollbackRequestSchema,
  RollbackResultSchema,
  TakedownResultSchema,
} from './schemas.js';
export { closeSparePublishWorker, keepSparePublishWorker, makeRoomBeforeEachPublish } from './publish-in-worker.js';
export { removeDeadWorkDirs } from './work-dirs.js';
export { nodeStoreReader, type NodeStoreReader } from './node-store-reader.js';
