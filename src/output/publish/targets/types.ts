/**
 * The one interface every publish target implements: a flat key space of
 * objects with a content type and a cache-control header, plus the two things targets do
 * differently: how a domain's public address reaches the live version (publicAlias) and how a
 * stored folder is read as local files (localFolder). Keys are `/`-separated, never start with
 * `/` and never contain `..`. The publisher needs nothing else and never asks which target it
 * has, so a new backend is one file plus a run of test/output/publish/target-conformance.ts.
 */
export interface PutOptions {
  contentType: string;
  cacheControl: string;
  /**
   * sha256 hex of the object's bytes, kept as object metadata where the target stores it
   * atomically with the bytes (S3 user metadata), so a later publish can see that a serving
   * copy already holds the right bytes without reading them.
   */
  sha256?: string;
}

export interface PutFileOptions extends PutOptions {
  /**
   * The caller gives the file up: it is never written again (a publish's own compiled file, in
   * a folder removed afterwards), so a target may take it over (fs: a hard link into the store
   * instead of a copy of its bytes). Default false: the file is copied.
   */
  handOver?: boolean;
}

export interface ObjectInfo {
  key: string;
  bytes: number;
  contentType: string | undefined;
  cacheControl: string | undefined;
  /** The sha256 given when the object was written, on targets that keep it with the bytes (S3). */
  sha256?: string;
}

/** A site as its public address `{node_base_url}/{domain}/{file}` names it. */
export interface SiteAddress {
  domain: string;
  websiteId: string;
  siteHash: string;
}

/**
 * How a domain's public address reaches the live version (docs/publishing.md "Targets"). The
 * publisher calls these at fixed points of a publish and a takedown; what they write is the
 * target's own business.
 */
export interface PublicAlias {
  /**
   * Where the target keeps a copy of every live file for the address, ending in `/` (S3:
   * `<domain>/`, which a CDN serves as it is); undefined when a server resolves the address
   * through the pointer when it is read (fs: the daemon). The publisher writes, prunes, takes
   * down and purges these copies as it does latest/.
   */
  readonly mirrorPrefix: string | undefined;
  /**
   * Makes the address name the site's new version; runs after
   * the serving copies are written and before the pointer flip.
   */
  announce(manifestBody: Buffer): Promise<void>;
  /** Runs in a takedown once the pointer is gone: the address stops serving the node (the daemon answers 410). */
  withdraw(): Promise<void>;
}

export interface PublishTarget {
  /**
   * The target's name, for summaries and logs only: the publisher
   * never branches on it (test/output/publish/target-seams.app.test.ts).
   */
  readonly kind: 'fs' | 's3';
  /** Human description for summaries, e.g. `s3://bucket/prefix` or the folder. */
  readonly description: string;
  /**
   * Writes an object; readers see either the old or the new object whole, never a part. Once it
   * resolves, the object and every object written before it are durable (fs: fsynced with their
   * folders), so a version's manifest and the pointer, both put last, survive a power loss with
   * everything they name.
   */
  put(key: string, body: Buffer | string, options: PutOptions): Promise<void>;
  /** Writes an object from a local file, streaming it (or taking the file over, see handOver). */
  putFile(key: string, localPath: string, options: PutFileOptions): Promise<void>;
  /**
   * Copies an existing object to another key without sending its bytes again (fs: a hard link,
   * S3: server-side CopyObject), replacing the metadata with `options`.
   */
  copy(fromKey: string, toKey: string, options: PutOptions): Promise<void>;
  /** Metadata of an object, or undefined when it does not exist. */
  head(key: string): Promise<ObjectInfo | undefined>;
  /** The whole object, or undefined when it does not exist. */
  get(key: string): Promise<Buffer | undefined>;
  /** Deletes an object; deleting a missing object is not an error. */
  delete(key: string): Promise<void>;
  /** Every key under `prefix` (which should end in `/`), sorted by code point. */
  list(prefix: string): Promise<string[]>;
  /**
   * A local folder holding the objects `names` under `prefix` (which ends in `/`) as files of
   * those names; a name the store lacks is absent. fs answers its own folder, read in place
   * (nothing is copied; it may hold other files); other targets download the names into
   * `scratchDir` and answer it. The caller only reads the folder.
   */
  localFolder(prefix: string, names: readonly string[], scratchDir: string): Promise<string>;
  /** How the domain's public address reaches this site's live version. */
  publicAlias(site: SiteAddress): PublicAlias;
  close(): Promise<void>;
}

/** Rejects keys that could escape the target's root. */
export function assertKey(key: string): void {
  if (
    key === '' ||
    key.startsWith('/') ||
    key.endsWith('/') ||
    key.split('/').some((part) => part === '' || part === '.' || part === '..') ||
    key.includes('\\') ||
    key.includes('\0')
  ) {
    throw new Error(`invalid object key: ${JSON.stringify(key)}`);
  }
}
