import type { ManifestFile } from '../node-format/index.js';
import { hexOfChecksum } from './layout.js';

/** The two writing steps of a publish that place files into versions/<ulid>/ (docs/publishing.md). */
export type PlacingStep = 'upload' | 'patch';

/** One distinct body the store lacks: sent once, into cas/<aa>/<sha>. */
export interface PlannedSend {
  sha: string;
  step: PlacingStep;
  /** The file whose bytes are sent: read from the compiled node directory, or `body` when given. */
  file: ManifestFile;
  /** The patched body (patch step); undefined for a compiled file (upload step). */
  body: Buffer | undefined;
}

/** One copy cas/<aa>/<sha> -> versions/<ulid>/<path>; its cas object exists before the copy runs. */
export interface PlannedCopy {
  sha: string;
  step: PlacingStep;
  file: ManifestFile;
  /** The file's state in the result: carried when this version does not send its bytes from this file. */
  state: 'uploaded' | 'carried';
}

export interface PlannedFile {
  path: string;
  bytes: number;
  checksum: string;
  immutable: boolean;
  /** uploaded: this file's bytes are sent; carried: the store holds them, or another file of this version sends them. */
  state: 'uploaded' | 'carried';
}

export interface PublishPlan {
  files: PlannedFile[];
  sends: PlannedSend[];
  copies: PlannedCopy[];
  /** Bytes of every send (the version's manifest.json not included). */
  bytesUploaded: number;
  bytesCarried: number;
}

/**
 * Plans the upload and patch steps for any set of files (identical bytes under several paths,
 * empty files, bytes only a patched body has): each distinct sha the store does not hold is sent
 * exactly once, from a compiled file when one has those bytes (upload step), else from a
 * patched body (patch step); every send of a step finishes before that step's copies, so no copy
 * reads a cas object that is not there yet. Compiled files are copied in the upload step, patched
 * files in the patch step. Pure: `held` is the set of shas cas/ already holds.
 */
export function planPublish(
  files: readonly ManifestFile[],
  bodies: ReadonlyMap<string, Buffer>,
  held: ReadonlySet<string>,
): PublishPlan {
  const source = new Map<string, { file: ManifestFile; body: Buffer | undefined }>();
  // A compiled file is the preferred source: it is sent in the earlier step.
  for (const f of files)
    if (!bodies.has(f.path)) setIfAbsent(source, hexOfChecksum(f.checksum), { file: f, body: undefined });
  for (const f of files)
    if (bodies.has(f.path)) setIfAbsent(source, hexOfChecksum(f.checksum), { file: f, body: bodies.get(f.path) });

  const sends: PlannedSend[] = [];
  for (const [sha, s] of source)
    if (!held.has(sha))
      sends.push({ sha, step: s.body === undefined ? 'upload' : 'patch', file: s.file, body: s.body });
  const sent = new Map(sends.map((s) => [s.sha, s]));
  const planned = files.map((f): PlannedFile => ({
    path: f.path,
    bytes: f.bytes,
    checksum: f.checksum,
    immutable: f.immutable,
    state: sent.get(hexOfChecksum(f.checksum))?.file === f ? 'uploaded' : 'carried',
  }));
  const copies = files.map((f, i): PlannedCopy => ({
    sha: hexOfChecksum(f.checksum),
    step: bodies.has(f.path) ? 'patch' : 'upload',
    file: f,
    state: planned[i]!.state,
  }));
  for (const c of copies) {
    // Cannot happen by construction; a wrong plan would copy a cas object that is not there yet.
    if (sent.get(c.sha)?.step === 'patch' && c.step === 'upload')
      throw new Error(`publish plan: ${c.file.path} would be copied before its bytes are sent`);
  }
  return {
    files: planned,
    sends,
    copies,
    bytesUploaded: sends.reduce((s, x) => s + x.file.bytes, 0),
    bytesCarried: planned.filter((f) => f.state === 'carried').reduce((s, f) => s + f.bytes, 0),
  };
}

function setIfAbsent<K, V>(map: Map<K, V>, key: K, value: V): void {
  if (!map.has(key)) map.set(key, value);
}
