import type { Db } from '../../platform/storage/index.js';
import { ManifestSchema, VECTOR_FILE, type Manifest } from '../../platform/node-format/index.js';
import { ErasedRecords, recordFileOrder, type ErasureSpec } from './erased-records.js';
import { hexOfChecksum, siteHashOf, siteKeys } from './layout.js';
import { servingPrefixes } from './flip.js';
import { PURGE_MARKER, readPurgeMarker, writePurgeMarker } from './purge-marker.js';
import { acquirePublishLock, PUBLISH_LOCK_TTL_MS } from './lock.js';
import { readLiveManifest } from './store.js';
import type { PublishTarget } from './targets/types.js';
import { patternsOf, TextMatcher } from './text-matcher.js';

export type { ErasureSpec } from './erased-records.js';

export interface PurgeOptions {
  target: PublishTarget;
  /** control.sqlite: the purge holds the site's publish lock while it deletes. */
  controlDb: Db;
  websiteId: string;
  /** The website's domain: the public alias's mirror (S3 <domain>/) is cleaned too. */
  domain: string;
  spec: ErasureSpec;
  /** Whether the graph still holds a record id (a record other items still produce is not erased). */
  inGraph: (recordId: string) => boolean;
  now: () => number;
}

export interface PurgeReport {
  /** Versions that lost files, oldest first. */
  versions: string[];
  /** Objects deleted from versions/, latest/ and the S3 alias (not counting cas/). */
  filesDeleted: number;
  casDeleted: number;
}

/** One object of the store that may hold erased content; `content` groups copies of the same bytes. */
interface StoredObject {
  key: string;
  /** File name inside the node (decides the scan order); '' for an orphan cas/ object. */
  path: string;
  /** sha256 hex when known without reading (manifest entries, cas/ keys). */
  sha?: string;
}

interface StoreIndex {
  keys: Set<string>;
  live: Manifest | undefined;
  /** Complete versions (their manifest.json exists), by ULID. */
  manifests: Map<string, Manifest>;
  /** Keys under versions/<ulid>/ of versions without a manifest (a publish cut short). */
  incomplete: string[];
}

/**
 * Pre-publish step of an erasure: the complete versions (the live one included) holding a record
 * line of an erased item. They are marked with versions/<ulid>/purged.json before the republish,
 * so the new version's versions.json already says `purged: true` for them.
 */
export async function findVersionsToPurge(
  target: PublishTarget,
  websiteId: string,
  spec: ErasureSpec,
  inGraph: (id: string) => boolean,
): Promise<string[]> {
  const index = await indexStore(target, websiteId);
  const erased = new ErasedRecords(websiteId, spec, inGraph);
  const objects = [...index.manifests].flatMap(([ulid, m]) => versionObjects(websiteId, ulid, m, index.keys));
  const dirty = await scanRecordLines(target, websiteId, objects, erased, new Set());
  return [...index.manifests]
    .filter(([ulid, m]) => versionObjects(websiteId, ulid, m, index.keys).some((o) => dirty.has(contentOf(o))))
    .map(([ulid]) => ulid)
    .sort();
}

/** Writes the purge marker of each version that has none yet (an empty file list). */
export async function markVersionsPurged(
  target: PublishTarget,
  websiteId: string,
  ulids: readonly string[],
  now: () => number,
): Promise<void> {
  for (const ulid of ulids) {
    const marker = await readPurgeMarker(target, websiteId, ulid);
    if (!marker)
      await writePurgeMarker(target, websiteId, ulid, { reason: 'gdpr_erasure', purged_at: isoOf(now()), files: [] });
  }
}

/**
 * Deletes what erased items left in the store, after the republish: every object outside the
 * live version whose .jsonl lines came from the items (ErasedRecords), or whose bytes contain a
 * text of those lines that the live version does not also hold. That covers the versions'
 * files, serving copies the live version no longer names (latest/, the S3 alias), files of
 * versions a cut-short publish left, and cas/ objects no surviving file references. The live
 * version is what remains after the erasure and is never touched. Takes the publish lock.
 */
export async function purgeErasedContent(options: PurgeOptions): Promise<PurgeReport> {
  const { target, websiteId } = options;
  const keys = siteKeys(siteHashOf(websiteId));
  const lock = acquirePublishLock(options.controlDb, websiteId, { now: options.now });
  // Reading every version of a large store can outlast the lock's lifetime: keep it renewed.
  const renewal = setInterval(() => lock.renew(), PUBLISH_LOCK_TTL_MS / 4);
  renewal.unref();
  try {
    const alias = target.publicAlias({ domain: options.domain, websiteId, siteHash: siteHashOf(websiteId) });
    const index = await indexStore(target, websiteId, alias.mirrorPrefix);
    const liveShas = new Set((index.live?.files ?? []).map((f) => hexOfChecksum(f.checksum)));
    const objects = candidateObjects(websiteId, index, servingPrefixes(siteHashOf(websiteId), alias));
    const erased = new ErasedRecords(websiteId, options.spec, options.inGraph);
    const dirty = await scanRecordLines(target, websiteId, objects, erased, liveShas);

    // Erased text the live version still says (other items say it too) is not searched for.
    let matcher = new TextMatcher([...erased.texts].flatMap(patternsOf));
    if (index.live && matcher.size > 0) {
      const said = new Set<number>();
      for (const f of index.live.files) {
        const body = await target.get(keys.version(index.live.node_version, f.path));
        if (body) for (const i of matcher.matchesIn(body)) said.add(i);
      }
      matcher = new TextMatcher(matcher.patterns.filter((_, i) => !said.has(i)));
    }
    const seen = new Set<string>();
    for (const o of objects) {
      const content = contentOf(o);
      if (matcher.size === 0 || dirty.has(content) || seen.has(content) || (o.sha && liveShas.has(o.sha))) continue;
      seen.add(content);
      const body = await readContent(target, websiteId, o);
      if (body && matcher.matches(body)) dirty.add(content);
    }

    // The vectors of a version hold no text to match, and its embeddings manifest names chunks by
    // id: both go with a chunk file that held an erased item's chunks (unless the live version has
    // the same bytes, which then hold nothing of the item).
    for (const [ulid, m] of index.manifests) {
      if (ulid === index.live?.node_version) continue;
      if (!m.files.some((f) => /^chunks\..+\.jsonl$/.test(f.path) && dirty.has(hexOfChecksum(f.checksum)))) continue;
      for (const f of m.files)
        if (
          (f.path === VECTOR_FILE || f.path === 'embeddings-manifest.json') &&
          !liveShas.has(hexOfChecksum(f.checksum))
        )
          dirty.add(hexOfChecksum(f.checksum));
    }
    const purgedFiles = new Map<string, string[]>();
    let filesDeleted = 0;
    for (const o of objects) {
      if (!dirty.has(contentOf(o)) || o.key.startsWith(keys.root + 'cas/')) continue;
      await target.delete(o.key);
      filesDeleted++;
      const ulid = /^[0-9a-f]{16}\/versions\/([0-9A-HJKMNP-TV-Z]{26})\//.exec(o.key)?.[1];
      if (ulid && index.manifests.has(ulid)) purgedFiles.set(ulid, [...(purgedFiles.get(ulid) ?? []), o.path]);
    }
    // A cas/ object goes when no file that survives the purge still has its bytes.
    const kept = new Set(liveShas);
    for (const [ulid, m] of index.manifests)
      for (const o of versionObjects(websiteId, ulid, m, index.keys)) if (!dirty.has(contentOf(o))) kept.add(o.sha!);
    let casDeleted = 0;
    for (const key of index.keys) {
      const sha = casShaOf(key);
      if (sha && dirty.has(sha) && !kept.has(sha)) {
        await target.delete(key);
        casDeleted++;
      }
    }
    for (const [ulid, files] of purgedFiles) {
      const marker = await readPurgeMarker(target, websiteId, ulid);
      await writePurgeMarker(target, websiteId, ulid, {
        reason: 'gdpr_erasure',
        purged_at: isoOf(options.now()),
        files: [...new Set([...(marker?.files ?? []), ...files])].sort(),
      });
    }
    // A version marked before the republish that stayed live, or lost nothing, is not purged.
    for (const ulid of index.manifests.keys()) {
      if (purgedFiles.has(ulid) || !index.keys.has(keys.version(ulid, PURGE_MARKER))) continue;
      const marker = await readPurgeMarker(target, websiteId, ulid);
      if (marker && marker.files.length === 0) await target.delete(keys.version(ulid, PURGE_MARKER));
    }
    return { versions: [...purgedFiles.keys()].sort(), filesDeleted, casDeleted };
  } finally {
    clearInterval(renewal);
    lock.release();
  }
}

/** Every key of the site's store, and of the alias's mirror when there is one. */
async function indexStore(target: PublishTarget, websiteId: string, mirrorPrefix?: string): Promise<StoreIndex> {
  const keys = siteKeys(siteHashOf(websiteId));
  const listed = new Set([
    ...(await target.list(keys.root)),
    ...(mirrorPrefix === undefined ? [] : await target.list(mirrorPrefix)),
  ]);
  const manifests = new Map<string, Manifest>();
  const byVersion = new Map<string, string[]>();
  for (const key of listed) {
    const ulid = /^[0-9a-f]{16}\/versions\/([0-9A-HJKMNP-TV-Z]{26})\//.exec(key)?.[1];
    if (ulid) byVersion.set(ulid, [...(byVersion.get(ulid) ?? []), key]);
  }
  const incomplete: string[] = [];
  for (const [ulid, versionKeys] of [...byVersion].sort()) {
    const body = versionKeys.includes(keys.version(ulid, 'manifest.json'))
      ? await target.get(keys.version(ulid, 'manifest.json'))
      : undefined;
    const parsed = body ? ManifestSchema.safeParse(JSON.parse(body.toString('utf8'))) : undefined;
    if (parsed?.success) manifests.set(ulid, parsed.data);
    else incomplete.push(...versionKeys.filter((k) => !k.endsWith('/' + PURGE_MARKER)));
  }
  return { keys: listed, live: await readLiveManifest(target, siteHashOf(websiteId)), manifests, incomplete };
}

/** The files of a complete version that are still in the store. */
function versionObjects(websiteId: string, ulid: string, manifest: Manifest, listed: Set<string>): StoredObject[] {
  const keys = siteKeys(siteHashOf(websiteId));
  return manifest.files
    .map((f) => ({ key: keys.version(ulid, f.path), path: f.path, sha: hexOfChecksum(f.checksum) }))
    .filter((o) => listed.has(o.key));
}

/** Every object outside the live version that could hold erased content. */
function candidateObjects(websiteId: string, index: StoreIndex, serving: readonly string[]): StoredObject[] {
  const live = index.live;
  const named = new Set((live?.files ?? []).map((f) => f.path));
  const out: StoredObject[] = [];
  for (const [ulid, m] of index.manifests)
    if (ulid !== live?.node_version) out.push(...versionObjects(websiteId, ulid, m, index.keys));
  for (const key of index.incomplete) out.push({ key, path: key.slice(key.lastIndexOf('/') + 1) });
  const referenced = new Set(
    [...index.manifests.values()].flatMap((m) => m.files.map((f) => hexOfChecksum(f.checksum))),
  );
  for (const key of [...index.keys].sort()) {
    const prefix = serving.find((p) => key.startsWith(p));
    const servedPath = prefix === undefined ? undefined : key.slice(prefix.length);
    if (servedPath !== undefined && servedPath !== 'manifest.json' && !named.has(servedPath))
      out.push({ key, path: servedPath });
    const sha = casShaOf(key);
    if (sha && !referenced.has(sha)) out.push({ key, path: '', sha });
  }
  return out;
}

/**
 * Reads every .jsonl object once (copies of the same bytes once), chunk files first and Q&A last,
 * and returns the contents with a line of an erased item. Contents the live version serves are
 * skipped: they are what remains.
 */
async function scanRecordLines(
  target: PublishTarget,
  websiteId: string,
  objects: StoredObject[],
  erased: ErasedRecords,
  liveShas: Set<string>,
): Promise<Set<string>> {
  const dirty = new Set<string>();
  const seen = new Set<string>();
  const order = (o: StoredObject) => (o.path === '' ? 3 : recordFileOrder(o.path));
  const jsonl = objects
    .filter((o) => o.path === '' || o.path.endsWith('.jsonl'))
    .sort((a, b) => order(a) - order(b) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  for (const o of jsonl) {
    const content = contentOf(o);
    if (seen.has(content) || (o.sha && liveShas.has(o.sha))) continue;
    seen.add(content);
    const body = await readContent(target, websiteId, o);
    if (body && erased.scanJsonl(body)) dirty.add(content);
  }
  return dirty;
}

const contentOf = (o: StoredObject) => o.sha ?? o.key;
const casShaOf = (key: string) => /^[0-9a-f]{16}\/cas\/[0-9a-f]{2}\/([0-9a-f]{64})$/.exec(key)?.[1];
const isoOf = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The bytes of an object: from cas/ when its sha is known (one read per content), else from its key. */
async function readContent(target: PublishTarget, websiteId: string, o: StoredObject): Promise<Buffer | undefined> {
  if (o.sha) {
    const body = await target.get(siteKeys(siteHashOf(websiteId)).cas(o.sha));
    if (body) return body;
  }
  return target.get(o.key);
}
