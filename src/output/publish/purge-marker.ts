import { z } from 'zod';
import { AppError } from '../../platform/errors/app-error.js';
import { siteHashOf, siteKeys } from './layout.js';
import type { PublishTarget } from './targets/types.js';

/** The marker a gdpr_erasure purge leaves in versions/<ulid>/: listStoredVersions, the daemon and rollback read it. */
export const PURGE_MARKER = 'purged.json';

const PurgeMarkerSchema = z.object({
  reason: z.literal('gdpr_erasure'),
  purged_at: z.string(),
  /** Paths of the version's files that were deleted (they answer 410 node.gone); empty while the purge has not run yet. */
  files: z.array(z.string()),
});
export type PurgeMarker = z.infer<typeof PurgeMarkerSchema>;

/** The version's purge marker, or undefined when it has none; a marker that fails its schema throws. */
export async function readPurgeMarker(
  target: PublishTarget,
  websiteId: string,
  ulid: string,
): Promise<PurgeMarker | undefined> {
  const key = siteKeys(siteHashOf(websiteId)).version(ulid, PURGE_MARKER);
  const body = await target.get(key);
  if (body === undefined) return undefined;
  const parsed = PurgeMarkerSchema.safeParse(JSON.parse(body.toString('utf8')));
  if (!parsed.success) throw new Error(`${key} fails its schema: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

export async function writePurgeMarker(
  target: PublishTarget,
  websiteId: string,
  ulid: string,
  marker: PurgeMarker,
): Promise<void> {
  await target.put(
    siteKeys(siteHashOf(websiteId)).version(ulid, PURGE_MARKER),
    JSON.stringify(marker, null, 2) + '\n',
    { contentType: 'application/json', cacheControl: 'no-store' },
  );
}

/**
 * Refuses (409 publish.version_purged) to serve a version a gdpr_erasure purged, or marked for
 * its purge: its files holding the erased items are deleted for good (or about to be), so
 * flipping to it would fail at verify, or serve erased content until the purge runs.
 */
export async function assertNotPurged(target: PublishTarget, websiteId: string, ulid: string): Promise<void> {
  let marker: PurgeMarker | undefined;
  try {
    marker = await readPurgeMarker(target, websiteId, ulid);
  } catch {
    marker = { reason: 'gdpr_erasure', purged_at: '', files: [] }; // unreadable, but there: purged all the same
  }
  if (marker === undefined) return;
  const when = marker.purged_at === '' ? '' : ` at ${marker.purged_at}`;
  const what =
    marker.files.length > 0
      ? `was purged by a gdpr_erasure${when}: ${marker.files.length} of its files (${marker.files.slice(0, 5).join(', ')}${marker.files.length > 5 ? ', ...' : ''}) held erased items and were deleted for good`
      : `holds records of erased items and is marked for a gdpr_erasure purge${when}`;
  throw new AppError(
    'publish.version_purged',
    `Version ${ulid} of website ${websiteId} ${what}, so it cannot be served again; nothing was changed. Roll back to a version that \`nodectl versions --website ${websiteId}\` does not mark purged, or publish a new build.`,
    { details: { version: ulid, purgedAt: marker.purged_at === '' ? null : marker.purged_at, files: marker.files } },
  );
}
