import { AppError } from '../../platform/errors/app-error.js';
import { emitEvent } from '../../control/events/emit.js';
import type { Db } from '../../platform/storage/sqlite.js';
import { flipLatest, servingPrefixes, verifyVersion, type FlipOptions } from './flip.js';
import { siteHashOf, siteKeys } from './layout.js';
import { acquirePublishLock } from './lock.js';
import { diffFiles, type FileChange } from './patch.js';
import { SILENT_PROGRESS, type PublishProgress } from './progress.js';
import { assertNotPurged } from './purge-marker.js';
import type { PublishedFile } from './published-file.js';
import { readLiveManifest, readManifestAt } from './store.js';
import type { PublishTarget } from './targets/types.js';

export interface FlipResult {
  versionUlid: string;
  versionLabel: string;
  previousVersion: string | null;
  files: PublishedFile[];
  changes: FileChange[];
  bytesUploaded: number;
  bytesCarried: number;
  objectsWritten: number;
}

/**
 * Points latest/ at a version the store already holds, with the same verify, latest and flip
 * steps as a publish (nothing is uploaded). The version's files are served exactly as they
 * were published, its own versions.json and changes.jsonl included. A version a gdpr_erasure
 * purged (or marked for its purge) is refused first: 409 publish.version_purged.
 */
export async function flipToStoredVersion(
  target: PublishTarget,
  websiteId: string,
  ulid: string,
  progress: PublishProgress = SILENT_PROGRESS,
  options: FlipOptions = { rollback: true },
): Promise<FlipResult> {
  const siteHash = siteHashOf(websiteId);
  const keys = siteKeys(siteHash);
  const body = await target.get(keys.version(ulid, 'manifest.json'));
  if (!body)
    throw new AppError(
      'version.not_found',
      `The store holds no complete version ${ulid} of website ${websiteId}; see \`nodectl versions --website ${websiteId}\`.`,
    );
  const manifest = await readManifestAt(target, keys.version(ulid, 'manifest.json'));
  if (!manifest || manifest.website_id !== websiteId)
    throw new AppError('version.not_found', `Version ${ulid} does not belong to website ${websiteId}.`);
  await assertNotPurged(target, websiteId, ulid);
  const live = await readLiveManifest(target, siteHash);
  await verifyVersion(target, siteHash, manifest, progress);
  const objectsWritten = await flipLatest(target, siteHash, websiteId, manifest, body, progress, options);
  progress.step('done', 0);
  const files = manifest.files.map((f): PublishedFile => ({
    path: f.path,
    bytes: f.bytes,
    checksum: f.checksum,
    immutable: f.immutable,
    state: 'carried',
  }));
  return {
    versionUlid: ulid,
    versionLabel: manifest.node_version_label ?? '',
    previousVersion: live?.node_version ?? null,
    files,
    changes: diffFiles(manifest.files, live?.files ?? []),
    bytesUploaded: 0,
    bytesCarried: files.reduce((s, f) => s + f.bytes, 0),
    objectsWritten,
  };
}

/** `nodectl rollback`: takes the site's publish lock and flips latest/ to an earlier version. */
export async function rollbackNode(options: {
  target: PublishTarget;
  controlDb: Db;
  websiteId: string;
  to: string;
  now?: () => number;
  progress?: PublishProgress;
}): Promise<FlipResult> {
  const lock = acquirePublishLock(options.controlDb, options.websiteId, { now: options.now });
  try {
    const result = await flipToStoredVersion(options.target, options.websiteId, options.to, options.progress);
    // Written right after the flip, as a publish does (docs/webhooks.md "Events").
    emitEvent(
      options.controlDb,
      {
        type: 'node.published',
        website_id: options.websiteId,
        data: {
          node_version: result.versionUlid,
          node_version_label: result.versionLabel || null,
          previous_version: result.previousVersion,
          public_url: null,
          rollback: true,
        },
      },
      (options.now ?? Date.now)(),
    );
    return result;
  } finally {
    lock.release();
  }
}

/**
 * Takedown: deletes the pointer first (from then on the daemon answers 410 node.gone for the
 * domain), leaves a tombstone marker, withdraws the public alias (fs: writes the domain map, so
 * the daemon answers 410 even for a domain that was never published; S3: deletes the mirror's
 * manifest.json), then removes the other serving copies (latest/ and the alias's mirror).
 * versions/ and cas/ are kept, so a later publish or rollback can bring the node back. A second
 * takedown finds nothing to delete and answers the same.
 */
export async function takeDownNode(options: {
  target: PublishTarget;
  controlDb: Db;
  websiteId: string;
  domain: string;
  now?: () => number;
}): Promise<{ tombstoned: true; removed: number }> {
  const { target, websiteId } = options;
  const siteHash = siteHashOf(websiteId);
  const keys = siteKeys(siteHash);
  const lock = acquirePublishLock(options.controlDb, websiteId, { now: options.now });
  try {
    const now = options.now ?? Date.now;
    const alias = target.publicAlias({ domain: options.domain, websiteId, siteHash });
    const live = await readLiveManifest(target, siteHash);
    await target.delete(keys.pointer);
    await target.put(
      keys.tombstone,
      JSON.stringify({ tombstoned_at: new Date(now()).toISOString(), website_id: websiteId }) + '\n',
      { contentType: 'application/json', cacheControl: 'no-store' },
    );
    await alias.withdraw();
    const serving: string[] = [];
    for (const prefix of servingPrefixes(siteHash, alias)) serving.push(...(await target.list(prefix)));
    for (const key of serving) await target.delete(key);
    // Once the node is no longer served; a repeated takedown (nothing was served) emits nothing.
    if (live || serving.length > 0)
      emitEvent(
        options.controlDb,
        {
          type: 'node.taken_down',
          website_id: websiteId,
          data: { previous_version: live?.node_version ?? null, removed_files: serving.length },
        },
        now(),
      );
    return { tombstoned: true, removed: serving.length };
  } finally {
    lock.release();
  }
}
