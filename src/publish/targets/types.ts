/**
 * The one interface every publish target implements (STYLE.md "Adapters"): a flat key space of
 * objects with a content type and a cache-control header. Keys are `/`-separated, never start
 * with `/` and never contain `..`. The publisher needs nothing else, so a new backend is one file
 * plus a run of test/publish/target-conformance.ts.
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

export interface ObjectInfo {
  key: string;
  bytes: number;
  contentType: string | undefined;
  cacheControl: string | undefined;
  /** The sha256 given when the object was written, on targets that keep it with the bytes (S3). */
  sha256?: string;
}

export interface PublishTarget {
  readonly kind: 'fs' | 's3';
  /** Human description for summaries, e.g. `s3://bucket/prefix` or the folder. */
  readonly description: string;
  /** Writes an object; readers see either the old or the new object whole, never a part. */
  put(key: string, body: Buffer | string, options: PutOptions): Promise<void>;
  /** Writes an object from a local file, streaming it. */
  putFile(key: string, localPath: string, options: PutOptions): Promise<void>;
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
  /** A local path of the object when the target is a local folder (the daemon streams from it). */
  localPath?(key: string): string;
  close(): Promise<void>;
}

/** Rejects keys that could escape the target's root. */
export function assertKey(key: string): void {
  if (key === '' || key.startsWith('/') || key.endsWith('/') || key.split('/').some((part) => part === '' || part === '.' || part === '..') || key.includes('\\') || key.includes('\0')) {
    throw new Error(`invalid object key: ${JSON.stringify(key)}`);
  }
}
