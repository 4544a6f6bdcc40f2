import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { ManifestSchema, type Manifest, type ManifestFile } from '../node-format/index.js';
import { domainMapKey, hexOfChecksum, MUTABLE_CACHE, siteKeys, versionedCache } from './layout.js';
import { PURGE_MARKER } from './purge-marker.js';
import type { FsTarget } from './targets/fs.js';

export type NodeFileLookup =
  | {
      kind: 'file';
      websiteId: string;
      localPath: string;
      contentType: string;
      cacheControl: string;
      etag: string;
      bytes: number;
    }
  | {
      kind: 'gone';
      websiteId: string;
      /** purged: this file was deleted by a gdpr_erasure; else the node was taken down. */ purged?: true;
    }
  | { kind: 'not_found'; websiteId: string | undefined };

interface CachedManifest {
  mtimeMs: number;
  size: number;
  manifest: Manifest;
  etag: string;
}

/**
 * Resolves public node paths against the local (fs) store, for the daemon; it streams the files
 * from their paths, so it takes the fs target, not any PublishTarget. Every file is read
 * through the pointer: domains/<domain>.json -> <siteHash>/latest/manifest.json -> the file's
 * entry -> versions/<ulid>/<file>, so a reader never sees a mix of two versions, even while a
 * publish is writing latest/. Parsed manifests are cached by file mtime and size.
 */
export function createNodeReader(store: Pick<FsTarget, 'filePath'>) {
  const local = (key: string) => store.filePath(key);
  const manifests = new Map<string, CachedManifest>();
  const sites = new Map<string, { mtimeMs: number; websiteId: string; siteHash: string }>();

  const statOf = (key: string) => {
    try {
      return statSync(local(key));
    } catch {
      return undefined;
    }
  };

  function manifestAt(key: string): CachedManifest | undefined {
    const s = statOf(key);
    if (!s) return undefined;
    const cached = manifests.get(key);
    if (cached && cached.mtimeMs === s.mtimeMs && cached.size === s.size) return cached;
    let text: string;
    try {
      text = readFileSync(local(key), 'utf8');
    } catch {
      return undefined;
    }
    const entry = {
      mtimeMs: s.mtimeMs,
      size: Buffer.byteLength(text),
      manifest: ManifestSchema.parse(JSON.parse(text)),
      etag: `"${createHash('sha256').update(text).digest('hex')}"`,
    };
    manifests.set(key, entry);
    return entry;
  }

  function site(domain: string): { websiteId: string; siteHash: string } | undefined {
    const key = domainMapKey(domain);
    const s = statOf(key);
    if (!s) return undefined;
    const cached = sites.get(domain);
    if (cached && cached.mtimeMs === s.mtimeMs) return cached;
    const map = JSON.parse(readFileSync(local(key), 'utf8')) as { website_id: string; site_hash: string };
    const entry = { mtimeMs: s.mtimeMs, websiteId: map.website_id, siteHash: map.site_hash };
    sites.set(domain, entry);
    return entry;
  }

  const fileOf = (
    websiteId: string,
    siteHash: string,
    ulid: string,
    entry: Pick<ManifestFile, 'path' | 'content_type' | 'checksum' | 'bytes'>,
    cacheControl: string,
  ): NodeFileLookup => ({
    kind: 'file',
    websiteId,
    localPath: local(siteKeys(siteHash).version(ulid, entry.path)),
    contentType: entry.content_type,
    cacheControl,
    etag: `"${hexOfChecksum(entry.checksum)}"`,
    bytes: entry.bytes,
  });
  const manifestFile = (websiteId: string, key: string, m: CachedManifest, cacheControl: string): NodeFileLookup => ({
    kind: 'file',
    websiteId,
    localPath: local(key),
    contentType: 'application/json',
    cacheControl,
    etag: m.etag,
    bytes: m.size,
  });

  return {
    /** `{node_base_url}/{domain}/{file}`: the live version, with mutable cache headers. */
    resolveLatest(domain: string, path: string): NodeFileLookup {
      const s = site(domain);
      if (!s) return { kind: 'not_found', websiteId: undefined };
      const keys = siteKeys(s.siteHash);
      const live = manifestAt(keys.pointer);
      if (!live)
        return statOf(keys.tombstone)
          ? { kind: 'gone', websiteId: s.websiteId }
          : { kind: 'not_found', websiteId: s.websiteId };
      if (path === 'manifest.json') return manifestFile(s.websiteId, keys.pointer, live, MUTABLE_CACHE);
      const entry = live.manifest.files.find((f) => f.path === path);
      return entry
        ? fileOf(s.websiteId, s.siteHash, live.manifest.node_version, entry, MUTABLE_CACHE)
        : { kind: 'not_found', websiteId: s.websiteId };
    },
    /** `{node_base_url}/{domain}/versions/{ulid}/{file}`: a pinned version, each file with its own cache class. */
    resolvePinned(domain: string, ulid: string, path: string): NodeFileLookup {
      const s = site(domain);
      if (!s) return { kind: 'not_found', websiteId: undefined };
      const keys = siteKeys(s.siteHash);
      if (!statOf(keys.pointer) && statOf(keys.tombstone)) return { kind: 'gone', websiteId: s.websiteId };
      if (!/^[0-9A-HJKMNP-TV-Z]{26}$/.test(ulid)) return { kind: 'not_found', websiteId: s.websiteId };
      const key = keys.version(ulid, 'manifest.json');
      const m = manifestAt(key);
      if (!m) return { kind: 'not_found', websiteId: s.websiteId };
      if (path === 'manifest.json') return manifestFile(s.websiteId, key, m, versionedCache(false));
      const entry = m.manifest.files.find((f) => f.path === path);
      if (!entry) return { kind: 'not_found', websiteId: s.websiteId };
      // A file a gdpr_erasure deleted (its purge leaves versions/<ulid>/purged.json).
      if (!statOf(keys.version(ulid, entry.path)) && statOf(keys.version(ulid, PURGE_MARKER)))
        return { kind: 'gone', websiteId: s.websiteId, purged: true };
      return fileOf(s.websiteId, s.siteHash, ulid, entry, versionedCache(entry.immutable));
    },
  };
}
