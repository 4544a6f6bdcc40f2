import type { Settings } from '../../platform/config/index.js';
import type { Db } from '../../platform/storage/index.js';
import { deleteWebsiteSnapshots } from '../../ingest/handover/index.js';
import { aliasKey, domainMapKey, siteHashOf, siteKeys } from './layout.js';
import { acquirePublishLock } from './lock.js';
import { createTargetFromSettings } from './targets/index.js';
import type { PublishTarget } from './targets/types.js';

/**
 * Deletes everything one target holds for a website (an organization erase, docs/organizations.md
 * "Erase"): the pointer first, so the node stops being served, then every key under the site's
 * folder (versions, cas, latest, tombstone, purge markers) and its public address (the fs domain
 * map, the S3 mirror under `<domain>/`) and its graph snapshots. Unlike a takedown nothing is kept, so nothing can bring
 * the node back. Holds the publish lock, so no publish of the website runs meanwhile (a held lock
 * fails with 409 publish.conflict: retry). Returns how many objects were deleted.
 */
export async function eraseWebsiteFromTarget(
  target: PublishTarget,
  controlDb: Db,
  website: { websiteId: string; domain: string; now?: () => number },
): Promise<number> {
  const keys = siteKeys(siteHashOf(website.websiteId));
  const lock = acquirePublishLock(controlDb, website.websiteId, { now: website.now });
  try {
    await target.delete(keys.pointer);
    const doomed = [
      ...(await target.list(keys.root)),
      ...(await target.list(aliasKey(website.domain, ''))),
      domainMapKey(website.domain),
    ];
    for (const key of doomed) await target.delete(key);
    // With several daemons the target also holds the graph's snapshots (src/ingest/handover): private, and the website's.
    return doomed.length + (await deleteWebsiteSnapshots({ controlDb, snapshots: target }, website.websiteId));
  } finally {
    lock.release();
  }
}

/** Every target that may hold published files: the local folder always, the S3 bucket when one is configured. */
export async function openEveryTarget(settings: Settings): Promise<PublishTarget[]> {
  const targets = [await createTargetFromSettings(settings, 'fs')];
  if (settings.s3Bucket) targets.push(await createTargetFromSettings(settings, 's3'));
  return targets;
}

/** Deletes a website's published files from every target (eraseWebsiteFromTarget on each). */
export async function eraseWebsiteNode(
  settings: Settings,
  controlDb: Db,
  website: { websiteId: string; domain: string; now?: () => number },
): Promise<void> {
  const targets = await openEveryTarget(settings);
  try {
    for (const target of targets) await eraseWebsiteFromTarget(target, controlDb, website);
  } finally {
    for (const target of targets) await target.close();
  }
}
