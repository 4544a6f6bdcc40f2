import {
  isRecordFile,
  ManifestSchema,
  VersionsSchema,
  type Manifest,
  type VersionEntry,
} from '../../platform/node-format/index.js';
import { siteKeys } from './layout.js';
import type { PublishTarget } from './targets/types.js';

/** The live manifest of a site (latest/manifest.json), or undefined when nothing is live. */
export async function readLiveManifest(
  target: Pick<PublishTarget, 'get'>,
  siteHash: string,
): Promise<Manifest | undefined> {
  return readManifestAt(target, siteKeys(siteHash).pointer);
}

export async function readManifestAt(target: Pick<PublishTarget, 'get'>, key: string): Promise<Manifest | undefined> {
  const body = await target.get(key);
  if (body === undefined) return undefined;
  return ManifestSchema.parse(JSON.parse(body.toString('utf8')));
}

/** A version the store holds completely (its versions/<ulid>/manifest.json exists). */
export interface StoredVersion extends VersionEntry {
  live: boolean;
}

/**
 * Every complete version of a site in the store, newest first (ULID order). Labels and build
 * times come from the live versions.json when it knows the version, else from the version's own
 * manifest (one GET each, only for versions the live history does not name).
 */
export async function listStoredVersions(target: PublishTarget, siteHash: string): Promise<StoredVersion[]> {
  const keys = siteKeys(siteHash);
  const listed = await target.list(keys.versionsPrefix);
  const complete = listed
    .map((key) => /^[0-9a-f]{16}\/versions\/([0-9A-HJKMNP-TV-Z]{26})\/manifest\.json$/.exec(key)?.[1])
    .filter((u): u is string => u !== undefined);
  // A gdpr_erasure leaves versions/<ulid>/purged.json (src/output/publish/purge-marker.ts).
  const purged = new Set(
    listed
      .map((key) => /^[0-9a-f]{16}\/versions\/([0-9A-HJKMNP-TV-Z]{26})\/purged\.json$/.exec(key)?.[1])
      .filter((u) => u !== undefined),
  );
  const live = await readLiveManifest(target, siteHash);
  const known = new Map<string, VersionEntry>();
  if (live) {
    const versions = await target.get(keys.version(live.node_version, 'versions.json'));
    const parsed = versions ? VersionsSchema.safeParse(JSON.parse(versions.toString('utf8'))) : undefined;
    if (parsed?.success) for (const v of [parsed.data.current, ...parsed.data.history]) known.set(v.node_version, v);
  }
  const out: StoredVersion[] = [];
  for (const ulid of [...new Set(complete)].sort().reverse()) {
    let entry = known.get(ulid);
    if (!entry) {
      const manifest = await readManifestAt(target, keys.version(ulid, 'manifest.json')).catch(() => undefined);
      if (!manifest) continue;
      entry = {
        node_version: ulid,
        generated_at: manifest.generated_at,
        ...(manifest.node_version_label ? { node_version_label: manifest.node_version_label } : {}),
      };
    }
    out.push({
      ...entry,
      node_version: ulid,
      ...(purged.has(ulid) ? { purged: true as const } : {}),
      live: live?.node_version === ulid,
    });
  }
  return out;
}

/**
 * node_version_label `YYYY-MM-DD.N` (docs/contract.md#published-layout): the publish day (UTC) and one
 * more than the highest sequence the store already holds for that day.
 */
export function nextVersionLabel(
  stored: ReadonlyArray<Pick<VersionEntry, 'node_version_label'>>,
  nowMs: number,
): string {
  const day = new Date(nowMs).toISOString().slice(0, 10);
  let max = 0;
  for (const v of stored) {
    const m = /^(\d{4}-\d{2}-\d{2})\.(\d+)$/.exec(v.node_version_label ?? '');
    if (m && m[1] === day) max = Math.max(max, Number(m[2]));
  }
  return `${day}.${max + 1}`;
}

export { isRecordFile } from '../../platform/node-format/index.js';

/**
 * Knowledge records of a manifest, for the drop gate: the records of the entity, fact,
 * relationship, chunk, Q&A and source files (feeds such as changes.jsonl are derived, not counted).
 */
export function recordCount(manifest: Pick<Manifest, 'files'>): number {
  return manifest.files.reduce((sum, f) => sum + (isRecordFile(f.path) ? (f.records ?? 0) : 0), 0);
}
