import type { Db } from '../../platform/storage/sqlite.js';
import { aliasKey, domainMapKey, siteHashOf, siteKeys } from './layout.js';
import { acquirePublishLock } from './lock.js';
import type { PublishTarget } from './targets/types.js';

/**
 * Deletes everything one target holds for a website (an organization erase, docs/organizations.md
 * "Erase"): the pointer first, so the node stops being served, then every key under the site's
 * folder (versions, cas, latest, tombstone, purge markers) and its public address (the fs domain
 * map, the S3 mirror under `<domain>/`). Unlike a takedown nothing is kept, so nothing can bring
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
    return doomed.length;
  } finally {
    lock.release();
  }
}
