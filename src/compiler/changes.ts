import { ChangeRecordSchema, NODE_SCHEMA_VERSION, type ChangeRecord } from '../output/node-format/index.js';
import { JsonlWriter, lineHash } from './jsonl-writer.js';
import type { NodeSink, WrittenFile } from './sink.js';
import { compareStrings } from './top-k.js';
import type { PreviousNode } from './types.js';

const KIND_BY_PREFIX: Record<string, ChangeRecord['record_kind']> = {
  entity: 'entity',
  fact: 'fact',
  rel: 'relationship',
  chunk: 'chunk',
  qa: 'qa',
  src: 'source',
};

export function recordKindOf(id: string): ChangeRecord['record_kind'] {
  return KIND_BY_PREFIX[id.slice(0, id.indexOf('_'))] ?? 'file';
}

/**
 * changes.jsonl: every record added or changed, as it is written (in file, then id order), then
 * every record and file of the previous version that is gone, sorted by (file, id), then files
 * added, changed or removed. Unchanged records are not listed. A first version (no previous)
 * has an empty changes.jsonl: there is nothing to change against, and versions.json says so
 * by having no `previous`.
 */
export class ChangeLog {
  private readonly writer: JsonlWriter<ChangeRecord>;
  private readonly remaining: Map<string, string>;
  private readonly since: string | undefined;

  constructor(
    sink: NodeSink,
    private readonly previous: PreviousNode | undefined,
  ) {
    this.writer = new JsonlWriter<ChangeRecord>(sink, 'changes.jsonl', ChangeRecordSchema);
    this.remaining = new Map(previous?.recordHashes ?? []);
    this.since = previous?.nodeVersion;
  }

  /** Called with each record line as it is written. A first version has nothing to compare against: no hashing. */
  readonly observe = (file: string, id: string, line: string): void => {
    if (this.previous === undefined) return;
    const hash = lineHash(line);
    const key = `${file}\u0000${id}`;
    const before = this.remaining.get(key);
    if (before !== undefined) this.remaining.delete(key);
    if (before === hash) return;
    this.emit(before === undefined ? 'added' : 'changed', recordKindOf(id), id, file, hash, before);
  };

  /** Lists removed records, then file-level changes against the previous manifest, and closes. */
  close(currentFiles: ReadonlyArray<{ path: string; checksum: string }>): WrittenFile {
    if (this.previous === undefined) return this.writer.close();
    const removed = [...this.remaining.entries()].map(([key, hash]) => {
      const [file, id] = key.split('\u0000') as [string, string];
      return { file, id, hash };
    });
    removed.sort((a, b) => compareStrings(a.file, b.file) || compareStrings(a.id, b.id));
    for (const r of removed) this.emit('removed', recordKindOf(r.id), r.id, r.file, undefined, r.hash);

    const before = new Map((this.previous?.files ?? []).map((f) => [f.path, f.checksum]));
    const now = new Map(currentFiles.map((f) => [f.path, f.checksum]));
    const paths = [...new Set([...before.keys(), ...now.keys()])]
      .filter((p) => !VERSIONED_FILES.has(p))
      .sort(compareStrings);
    for (const path of paths) {
      const a = before.get(path);
      const b = now.get(path);
      if (a === b) continue;
      this.emit(a === undefined ? 'added' : b === undefined ? 'removed' : 'changed', 'file', path, path, b, a);
    }
    return this.writer.close();
  }

  private emit(
    change: ChangeRecord['change'],
    kind: ChangeRecord['record_kind'],
    id: string,
    file: string,
    hash: string | undefined,
    before: string | undefined,
  ): void {
    const record: ChangeRecord = {
      schema_version: NODE_SCHEMA_VERSION,
      change,
      record_kind: kind,
      record_id: id,
      file,
    };
    if (hash !== undefined) record.content_hash = hash;
    if (before !== undefined) record.previous_content_hash = before;
    if (this.since !== undefined) record.since_version = this.since;
    this.writer.add(record);
  }
}

/** Files that carry the version itself (or the change list): never compared file by file. */
export const VERSIONED_FILES: ReadonlySet<string> = new Set([
  'manifest.json',
  'versions.json',
  'openapi.json',
  'changes.jsonl',
]);
