import { createHash } from 'node:crypto';

/** Cache-Control of objects whose bytes can change under the same address (docs/contract.md#published-layout). */
export const MUTABLE_CACHE = 'public, max-age=60, stale-while-revalidate=300';
/** Cache-Control of objects whose bytes never change under the same address. */
export const IMMUTABLE_CACHE = 'public, max-age=31536000, immutable';

/** siteHash: the first 16 hex of sha256(websiteId) (docs/contract.md#published-layout). */
export function siteHashOf(websiteId: string): string {
  return createHash('sha256').update(websiteId).digest('hex').slice(0, 16);
}

/** Keys of one site's published store; every key is relative to the target root. */
export function siteKeys(siteHash: string) {
  return {
    root: `${siteHash}/`,
    versionsPrefix: `${siteHash}/versions/`,
    version: (ulid: string, path: string) => `${siteHash}/versions/${ulid}/${path}`,
    latest: (path: string) => `${siteHash}/latest/${path}`,
    latestPrefix: `${siteHash}/latest/`,
    /** The pointer: the single last mutating write of a publish. */
    pointer: `${siteHash}/latest/manifest.json`,
    /** Marker left by a takedown so the public alias answers 410, not 404. */
    tombstone: `${siteHash}/tombstone.json`,
    cas: (sha: string) => `${siteHash}/cas/${sha.slice(0, 2)}/${sha}`,
  };
}

/**
 * The public alias of a domain. fs: `domains/<domain>.json` maps the domain to its site (the
 * daemon reads it and serves through the pointer). s3: objects under `<domain>/<file>`, a mirror
 * of latest/ that a CDN serves as `{node_base_url}/{domain}/{file}`.
 */
export const domainMapKey = (domain: string) => `domains/${domain}.json`;
export const aliasKey = (domain: string, path: string) => `${domain}/${path}`;

export function sha256Hex(body: Buffer | string): string {
  return createHash('sha256').update(body).digest('hex');
}

/** `sha256:<hex>` to `<hex>`. */
export function hexOfChecksum(checksum: string): string {
  if (!/^sha256:[0-9a-f]{64}$/.test(checksum)) throw new Error(`not a sha256 checksum: ${checksum}`);
  return checksum.slice('sha256:'.length);
}

/** Cache-Control of a file inside versions/<ulid>/ (or cas/): its own class per the manifest flag. */
export function versionedCache(immutable: boolean): string {
  return immutable ? IMMUTABLE_CACHE : MUTABLE_CACHE;
}
