import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ChangeRecordSchema,
  NODE_SCHEMA_VERSION,
  VersionsSchema,
  type ChangeRecord,
  type Manifest,
  type ManifestFile,
  type Versions,
  type VersionEntry,
} from '../../platform/node-format/index.js';
import { forEachLine } from '../../platform/storage/index.js';
import { sha256Hex } from './layout.js';

/** Files the publisher rewrites before the flip ("mutable patches"). */
export const PATCHED_FILES = ['versions.json', 'changes.jsonl', 'openapi.json'] as const;

/** Files never compared file by file: they carry the version itself. */
const VERSIONED = new Set(['manifest.json', 'versions.json', 'openapi.json', 'changes.jsonl']);

export interface PatchedNode {
  /** The final manifest (label and patched entries replaced). */
  manifest: Manifest;
  manifestBody: Buffer;
  /** New bodies of the patched files, by path. */
  bodies: Map<string, Buffer>;
  /** File-level changes against the live version (also the tail of changes.jsonl). */
  fileChanges: FileChange[];
  /** True when the compiler's record-level lines were measured against another version and were dropped. */
  droppedRecordChanges: boolean;
}

export interface FileChange {
  path: string;
  change: 'added' | 'changed' | 'removed' | 'unchanged';
  checksum?: string;
  previousChecksum?: string;
}

const json = (value: unknown) => Buffer.from(JSON.stringify(value, null, 2) + '\n');
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Rewrites what only the store knows, before anything is flipped:
 * - versions.json: current = this version with the store's label; previous = the live version;
 *   history = every complete version in the store, newest first (at most 100);
 * - changes.jsonl: the compiler's record-level lines are kept when they were measured against
 *   the live version (since_version), else dropped; the file-level lines (record_kind "file")
 *   are recomputed against the live manifest (none for a first version);
 * - openapi.json: info.version and info.x-service-node-version echo the store's label;
 * - manifest.json: node_version_label, and the entries of the patched files.
 */
export function patchNode(
  nodeDir: string,
  compiled: Manifest,
  live: Manifest | undefined,
  history: VersionEntry[],
  label: string,
): PatchedNode {
  const bodies = new Map<string, Buffer>();
  const current: VersionEntry = {
    node_version: compiled.node_version,
    node_version_label: label,
    generated_at: compiled.generated_at,
  };
  const versions: Versions = {
    schema_version: NODE_SCHEMA_VERSION,
    current,
    history: history.filter((h) => h.node_version !== compiled.node_version).slice(0, 100),
  };
  if (live && live.node_version !== compiled.node_version) versions.previous = live.node_version;
  VersionsSchema.parse(versions);
  const has = (path: string) => compiled.files.some((f) => f.path === path);
  if (has('versions.json')) bodies.set('versions.json', json(versions));

  const fileChanges = diffFiles(compiled.files, live?.files ?? []);
  let droppedRecordChanges = false;
  if (has('changes.jsonl')) {
    const since = live?.node_version;
    // Read a line at a time: after a change to every record the file is as large as the node.
    const kept = keptRecordChanges(join(nodeDir, 'changes.jsonl'), since);
    droppedRecordChanges = kept === null;
    const out = kept ?? [];
    // A first version has nothing to change against: like the compiler, no lines at all.
    for (const c of live ? fileChanges : []) {
      if (c.change === 'unchanged') continue;
      const record: ChangeRecord = {
        schema_version: NODE_SCHEMA_VERSION,
        change: c.change,
        record_kind: 'file',
        record_id: c.path,
        file: c.path,
      };
      if (c.checksum) record.content_hash = c.checksum;
      if (c.previousChecksum) record.previous_content_hash = c.previousChecksum;
      if (since) record.since_version = since;
      out.push(Buffer.from(JSON.stringify(ChangeRecordSchema.parse(record)) + '\n'));
    }
    bodies.set('changes.jsonl', Buffer.concat(out));
  }

  if (has('openapi.json')) {
    const relabelled = openapiWithLabel(nodeDir, label);
    if (relabelled) bodies.set('openapi.json', relabelled);
  }

  const manifest: Manifest = structuredClone(compiled);
  manifest.node_version_label = label;
  manifest.files = manifest.files.map((f): ManifestFile => {
    const body = bodies.get(f.path);
    if (!body) return f;
    const entry: ManifestFile = { ...f, checksum: `sha256:${sha256Hex(body)}`, bytes: body.length };
    if (f.records !== undefined) entry.records = countLineFeeds(body);
    return entry;
  });
  // Key order of the compiled manifest is kept: only values change.
  return { manifest, manifestBody: json(manifest), bodies, fileChanges, droppedRecordChanges };
}

/**
 * The compiler's record-level lines of changes.jsonl (each a line of its own, as JSON.stringify
 * writes the record), when every one was measured against `since`; null when one was not (they
 * are all dropped then, so the rest of the file is not read). File-level lines are left out.
 */
function keptRecordChanges(path: string, since: string | undefined): Buffer[] | null {
  const kept: Buffer[] = [];
  let dropped = false;
  forEachLine(path, (line) => {
    if (dropped || line === '') return;
    const record = JSON.parse(line) as ChangeRecord;
    if (record.record_kind === 'file') return;
    if (record.since_version !== since) {
      dropped = true;
      kept.length = 0;
      return;
    }
    kept.push(Buffer.from(JSON.stringify(record) + '\n'));
  });
  return dropped ? null : kept;
}

/** The line feeds of a body: a .jsonl file's records. */
function countLineFeeds(body: Buffer): number {
  let count = 0;
  for (let at = body.indexOf(10); at !== -1; at = body.indexOf(10, at + 1)) count++;
  return count;
}

/**
 * openapi.json of `nodeDir` with info.version and info.x-service-node-version
 * set to `label`, or undefined when it already says so.
 */
function openapiWithLabel(nodeDir: string, label: string): Buffer | undefined {
  const doc = JSON.parse(readFileSync(join(nodeDir, 'openapi.json'), 'utf8')) as { info?: Record<string, unknown> };
  if (!doc.info || (doc.info['x-service-node-version'] === label && doc.info.version === label)) return undefined;
  doc.info.version = label;
  doc.info['x-service-node-version'] = label;
  return json(doc);
}

/**
 * True when the compiled node says exactly what the live version says: every file but the
 * version's own bookkeeping (manifest.json, versions.json, changes.jsonl) has the live bytes,
 * openapi.json differs at most in the version it echoes, and the manifest differs at most in
 * node_version, generated_at and the label. Publishing it would only add a copy of the live
 * version under a new ULID (docs/publishing.md "Same content twice").
 */
export function sameContentAsLive(nodeDir: string, compiled: Manifest, live: Manifest): boolean {
  const {
    node_version: _v,
    generated_at: _g,
    node_version_label: _l,
    files: compiledFiles,
    ...compiledRest
  } = compiled;
  const { node_version: _lv, generated_at: _lg, node_version_label: _ll, files: liveFiles, ...liveRest } = live;
  if (JSON.stringify(compiledRest) !== JSON.stringify(liveRest)) return false;
  if (
    compiledFiles.length !== liveFiles.length ||
    diffFiles(compiledFiles, liveFiles).some((c) => c.change !== 'unchanged')
  )
    return false;
  const liveOpenapi = liveFiles.find((f) => f.path === 'openapi.json');
  if (!compiledFiles.some((f) => f.path === 'openapi.json')) return liveOpenapi === undefined;
  if (liveOpenapi === undefined) return false;
  const relabelled =
    openapiWithLabel(nodeDir, live.node_version_label ?? '') ?? readFileSync(join(nodeDir, 'openapi.json'));
  return `sha256:${sha256Hex(relabelled)}` === liveOpenapi.checksum;
}

/** File-level changes of `next` against `previous`, by path (versioned files left out). */
export function diffFiles(
  next: ReadonlyArray<Pick<ManifestFile, 'path' | 'checksum'>>,
  previous: ReadonlyArray<Pick<ManifestFile, 'path' | 'checksum'>>,
): FileChange[] {
  const before = new Map(previous.map((f) => [f.path, f.checksum]));
  const now = new Map(next.map((f) => [f.path, f.checksum]));
  const paths = [...new Set([...before.keys(), ...now.keys()])].filter((p) => !VERSIONED.has(p)).sort(compare);
  return paths.map((path): FileChange => {
    const a = before.get(path);
    const b = now.get(path);
    if (a === undefined) return { path, change: 'added', checksum: b };
    if (b === undefined) return { path, change: 'removed', previousChecksum: a };
    return a === b
      ? { path, change: 'unchanged', checksum: b }
      : { path, change: 'changed', checksum: b, previousChecksum: a };
  });
}
