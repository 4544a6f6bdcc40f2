import { AppError } from '../../platform/errors/app-error.js';
import type { Manifest } from '../node-format/index.js';
import { faultPoint, mapLimit } from './faults.js';
import { hexOfChecksum, MUTABLE_CACHE, siteKeys } from './layout.js';
import type { PublishProgress } from './progress.js';
import { readLiveManifest } from './store.js';
import type { ObjectInfo, PublicAlias, PublishTarget, PutOptions } from './targets/types.js';

export const CONCURRENCY = 16;

/**
 * Step "verify": every file the manifest names must exist at versions/<ulid>/ with its size,
 * else 409 publish.atomic_conflict (retryable) and nothing is flipped.
 */
export async function verifyVersion(
  target: PublishTarget,
  siteHash: string,
  manifest: Manifest,
  progress: PublishProgress,
): Promise<void> {
  const keys = siteKeys(siteHash);
  progress.step('verify', manifest.files.length);
  const missing: string[] = [];
  await mapLimit(manifest.files, CONCURRENCY, async (file, i) => {
    await faultPoint('verify', i, manifest.files.length);
    const info = await target.head(keys.version(manifest.node_version, file.path));
    if (!info || info.bytes !== file.bytes) missing.push(file.path);
    progress.advance(file.path, 'written');
  });
  if (missing.length > 0) {
    throw new AppError(
      'publish.atomic_conflict',
      `${missing.length} file(s) named by the manifest of ${manifest.node_version} are missing or short in the store (${missing.sort().slice(0, 5).join(', ')}); nothing was flipped. Retry the publish.`,
      { details: { missing: missing.sort() } },
    );
  }
}

/**
 * Steps "latest" and "flip": serving copies of every file go to latest/ (and to the public
 * alias's mirror when the target keeps one: S3 <domain>/), the alias is announced (fs: the
 * domain map; S3: the mirror's manifest.json), and then latest/manifest.json, the pointer, is
 * written as the single last mutating write. Readers that resolve files through the
 * pointer (the daemon, and any consumer that follows manifest.json to versions/<ulid>/) see the
 * old version whole until that write and the new one whole after it.
 */
export async function flipLatest(
  target: PublishTarget,
  siteHash: string,
  websiteId: string,
  manifest: Manifest,
  manifestBody: Buffer,
  progress: PublishProgress,
  options: FlipOptions,
): Promise<number> {
  const keys = siteKeys(siteHash);
  const ulid = manifest.node_version;
  const alias = target.publicAlias({ domain: manifest.domain, websiteId, siteHash });
  const prefixes = servingPrefixes(siteHash, alias);
  const refuseIfBehind = async () => {
    if (!options.rollback) assertNotBehindLive(await readLiveManifest(target, siteHash), ulid, websiteId);
  };
  await refuseIfBehind();
  const copies = manifest.files.flatMap((f) => {
    const meta = { contentType: f.content_type, cacheControl: MUTABLE_CACHE, sha256: hexOfChecksum(f.checksum) };
    const from = keys.version(ulid, f.path);
    return prefixes.map((prefix) => ({ from, to: prefix + f.path, bytes: f.bytes, meta }));
  });
  // A serving copy that already holds these bytes with these headers is left as it is: an
  // unchanged file is not copied again on every publish (only S3 reports the sha256 it keeps).
  const current = await mapLimit(copies, CONCURRENCY, (c) => target.head(c.to));
  const needed = copies.filter((c, i) => !holdsSame(current[i], c.bytes, c.meta));
  progress.step('latest', needed.length + 1);
  await mapLimit(needed, CONCURRENCY, async (c, i) => {
    await faultPoint('latest', i, needed.length);
    await target.copy(c.from, c.to, c.meta);
    progress.advance(c.to, 'written');
  });
  await pruneServingCopies(target, prefixes, manifest);
  await alias.announce(manifestBody);
  await target.delete(keys.tombstone);
  progress.advance('domain', 'written');

  progress.step('flip', 1);
  await faultPoint('flip', 0, 1);
  // Checked again at the last moment: another writer of this store (one not sharing our lock) may have flipped meanwhile.
  await refuseIfBehind();
  await target.put(keys.pointer, manifestBody, { contentType: 'application/json', cacheControl: MUTABLE_CACHE });
  progress.advance('latest/manifest.json', 'written');
  return needed.length + 3;
}

export interface FlipOptions {
  /** A rollback may serve a version older than the live one; a publish may not. */
  rollback: boolean;
}

/**
 * Refuses (409 publish.conflict) a version built before the live one: latest/ never moves
 * backwards on a publish, only by a rollback. Versions built in the same millisecond (the ULID's
 * time part) are not ordered, so neither refuses the other.
 */
export function assertNotBehindLive(
  live: Pick<Manifest, 'node_version' | 'node_version_label'> | undefined,
  ulid: string,
  websiteId: string,
): void {
  if (!live || ulid.slice(0, 10) >= live.node_version.slice(0, 10)) return;
  throw new AppError(
    'publish.conflict',
    `The live version ${live.node_version}${live.node_version_label ? ` (${live.node_version_label})` : ''} of website ${websiteId} was built after this one (${ulid}); a publish never moves latest/ backwards, so nothing was flipped. Publish a newer build, or serve an older published version with \`nodectl rollback --website ${websiteId} --to <ulid>\`.`,
    { retryAfterSeconds: 1, details: { liveVersion: live.node_version, version: ulid } },
  );
}

/** The folders of serving copies of the live version: latest/, and the alias's mirror when the target keeps one. */
export function servingPrefixes(siteHash: string, alias: PublicAlias): string[] {
  return [siteKeys(siteHash).latestPrefix, ...(alias.mirrorPrefix === undefined ? [] : [alias.mirrorPrefix])];
}

/**
 * Deletes serving copies the new manifest no longer names (latest/, and the alias's mirror), so
 * those folders hold exactly the live version's files. Runs before the flip; readers that follow
 * the pointer never read latest/ copies, so they are not affected.
 */
async function pruneServingCopies(
  target: PublishTarget,
  servingPrefixes: readonly string[],
  manifest: Manifest,
): Promise<void> {
  const named = new Set(['manifest.json', ...manifest.files.map((f) => f.path)]);
  const stale: string[] = [];
  for (const prefix of servingPrefixes)
    for (const key of await target.list(prefix)) if (!named.has(key.slice(prefix.length))) stale.push(key);
  await mapLimit(stale, CONCURRENCY, (key) => target.delete(key));
}

function holdsSame(info: ObjectInfo | undefined, bytes: number, meta: Required<PutOptions>): boolean {
  return (
    info !== undefined &&
    info.sha256 === meta.sha256 &&
    info.bytes === bytes &&
    info.contentType === meta.contentType &&
    info.cacheControl === meta.cacheControl
  );
}
