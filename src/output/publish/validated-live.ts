import type { Manifest } from '../node-format/index.js';
import { mapLimit } from './faults.js';
import { CONCURRENCY } from './flip.js';
import { hexOfChecksum, siteKeys } from './layout.js';
import type { PublishTarget } from './targets/types.js';

/**
 * The live manifest as the validator's `validatedNode`, so files it already holds are not
 * checked record by record again; or undefined, for a full check.
 *
 * Sound because every version in the store passed validateNode before its upload, and a file
 * the new version shares with it (same path and checksum) is never sent from the compiled
 * directory: it is copied from cas/<sha>, those validated bytes. So each shared file's cas
 * object must exist; if one is missing (the bytes would be uploaded), everything is checked.
 */
export async function validatedLiveNode(
  target: PublishTarget,
  siteHash: string,
  live: Manifest | undefined,
  compiled: Manifest,
): Promise<Manifest | undefined> {
  if (live === undefined) return undefined;
  const keys = siteKeys(siteHash);
  const liveChecksums = new Map(live.files.map((f) => [f.path, f.checksum]));
  const shared = compiled.files.filter((f) => liveChecksums.get(f.path) === f.checksum);
  const held = await mapLimit(
    shared,
    CONCURRENCY,
    async (f) => (await target.head(keys.cas(hexOfChecksum(f.checksum)))) !== undefined,
  );
  return held.every(Boolean) ? live : undefined;
}
