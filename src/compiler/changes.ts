import { ChangeRecordSchema, NODE_SCHEMA_VERSION, type ChangeRecord } from '../platform/node-format/index.js';
import { JsonlWriter, lineHash } from './jsonl-writer.js';
import { PreviousCitations } from './previous-citations.js';
import { PreviousLines } from './previous-lines.js';
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

interface Removed {
  file: string;
  id: string;
  hash: string;
}

/**
 * One record file of the previous version read alongside the file the compile writes (both in
 * id order): `at` pairs an id with its previous line, lines passed over are gone from the file.
 */
class PairedFile {
  private looked: { id: string; line: Buffer | undefined; taken: boolean } | null = null;
  private finished = false;

  constructor(
    readonly lines: PreviousLines,
    private readonly removed: Removed[],
    /** Collects the ids of lines gone from the file (ChangeLog.trackFlips). */
    private readonly flips?: Set<string>,
  ) {}

  /** The previous line of `id` (ids asked in ascending order; the same id again gives the same answer). */
  at(id: string): Buffer | undefined {
    if (this.looked?.id === id) return this.looked.line;
    this.settle();
    let head = this.lines.peek();
    while (head !== null && head.id < id) {
      this.lines.take();
      this.remove(head.id, head.line);
      head = this.lines.peek();
    }
    const line = head !== null && head.id === id ? this.lines.take()!.line : undefined;
    this.looked = { id, line, taken: false };
    return line;
  }

  /** The id of the next previous line not yet paired or passed over; null at the end. */
  nextId(): string | null {
    this.settle();
    return this.lines.peek()?.id ?? null;
  }

  /** The record `id` was written: its previous line (if any) is accounted for. */
  take(id: string): Buffer | undefined {
    const line = this.at(id);
    this.looked!.taken = true;
    return line;
  }

  /** Every line not paired with a written record is gone. */
  finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.settle();
    for (let head = this.lines.take(); head !== null; head = this.lines.take()) this.remove(head.id, head.line);
    this.lines.close();
  }

  /** A previous line looked at but whose record was not written (rejected on the way) is gone. */
  private settle(): void {
    if (this.looked !== null && !this.looked.taken && this.looked.line !== undefined)
      this.remove(this.looked.id, this.looked.line);
    this.looked = null;
  }

  private remove(id: string, line: Buffer): void {
    this.removed.push({ file: this.lines.path, id, hash: lineHash(line) });
    this.flips?.add(id);
  }
}

/**
 * changes.jsonl: every record added or changed, as it is written (in file, then id order), then
 * every record and file of the previous version that is gone, sorted by (file, id), then files
 * added, changed or removed. Unchanged records are not listed. A first version (no previous)
 * has an empty changes.jsonl: there is nothing to change against, and versions.json says so
 * by having no `previous`.
 *
 * The previous version's records come as line hashes (`recordHashes`), or as its directory
 * (`recordsDir`), whose record files are then read alongside the compile: a record whose line
 * is the same as before is settled by comparing the lines, and only the lines that differ are
 * hashed, so an unchanged record costs no hashing.
 */
export class ChangeLog {
  private readonly writer: JsonlWriter<ChangeRecord>;
  private readonly remaining: Map<string, string>;
  private readonly since: string | undefined;
  /** With `recordsDir`: the previous record files not yet finished, by path. */
  private readonly paired = new Map<string, PairedFile | null>();
  private readonly removed: Removed[] = [];
  /** citations.jsonl of the validated previous version, once a citation is written. */
  private citations: PreviousCitations | undefined;
  /** Per file: where trackFlips collects its ids. */
  private readonly flips = new Map<string, Set<string>>();

  constructor(
    sink: NodeSink,
    private readonly previous: PreviousNode | undefined,
  ) {
    this.writer = new JsonlWriter<ChangeRecord>(sink, 'changes.jsonl', ChangeRecordSchema);
    this.remaining = new Map(previous?.recordHashes ?? []);
    this.since = previous?.nodeVersion;
  }

  private get streaming(): boolean {
    return this.previous?.recordHashes === undefined && this.previous?.recordsDir !== undefined;
  }

  private pairedFile(file: string): PairedFile | null {
    let paired = this.paired.get(file);
    if (paired === undefined) {
      const listed = this.previous!.recordFiles?.includes(file) ?? false;
      paired = listed
        ? new PairedFile(new PreviousLines(this.previous!.recordsDir!, file), this.removed, this.flips.get(file))
        : null;
      this.paired.set(file, paired);
    }
    return paired;
  }

  /**
   * Whether `line` is the line record `id` of `file` had in a previous version that passed
   * validation (PreviousNode.validated): such a line is the same bytes under the same schema,
   * so its record need not be checked again. False whenever that is not known without hashing.
   */
  readonly unchanged = (file: string, id: string, line: Buffer): boolean => {
    if (this.previous?.validated !== true || !this.streaming) return false;
    return this.pairedFile(file)?.at(id)?.equals(line) === true;
  };

  /**
   * Whether `line`, written without an id, is the bytes of a line of the validated previous
   * version: citations.jsonl's lines, read in the order they are written (previous-citations.ts).
   */
  readonly sameLine = (file: string, line: Buffer): boolean => {
    if (this.previous?.validated !== true || !this.streaming || file !== 'citations.jsonl') return false;
    this.citations ??= new PreviousCitations(this.previous.recordsDir!);
    return this.citations.same(line);
  };

  /**
   * The validated previous version's citation of record `id` of `kind`, read in the order the
   * compile cites (previous-citations.ts), or null when it had none there or that is not known.
   */
  previousCitation(kind: string, id: string): Buffer | null {
    if (this.previous?.validated !== true || !this.streaming) return null;
    this.citations ??= new PreviousCitations(this.previous.recordsDir!);
    return this.citations.lineOf(kind, id);
  }

  /**
   * Record `id`'s line in `file` of the validated previous version read alongside the compile, or
   * undefined when it had none there or that is not known (ids asked in ascending order, as
   * `unchanged`). The bytes are valid until the next line of the file is read.
   */
  liveLine(file: string, id: string): Buffer | undefined {
    if (this.previous?.validated !== true || !this.streaming) return undefined;
    return this.pairedFile(file)?.at(id);
  }

  /**
   * The id of the next line of `file` in the validated previous version read alongside the
   * compile that no record was paired with or passed over yet; null at its end or when that is not
   * known.
   */
  nextLiveId(file: string): string | null {
    if (this.previous?.validated !== true || !this.streaming) return null;
    return this.pairedFile(file)?.nextId() ?? null;
  }

  /**
   * Collects into `into` the ids whose record is written in `file` without a line in the validated
   * previous version, or had a line there and is not written: a record whose export changed. Call
   * before the file is written, and finishFile once it is.
   */
  trackFlips(file: string, into: Set<string>): void {
    if (this.paired.has(file)) throw new Error(`${file}: flips are tracked from the file's first line`);
    this.flips.set(file, into);
  }

  /** Settles `file` now (its previous lines not written are gone), not at close: trackFlips is complete. */
  finishFile(file: string): void {
    if (this.previous !== undefined && this.streaming) this.pairedFile(file)?.finish();
  }

  /** Whether record `id` of `file` had a line in the validated previous version (false when that is not known without hashing). */
  readonly existed = (file: string, id: string): boolean => {
    if (this.previous?.validated !== true || !this.streaming) return false;
    return this.pairedFile(file)?.at(id) !== undefined;
  };

  /** Called with each record line as it is written. A first version has nothing to compare against: no hashing. */
  readonly observe = (file: string, id: string, line: Buffer): void => {
    if (this.previous === undefined) return;
    if (this.streaming) {
      const paired = this.pairedFile(file);
      const beforeLine = paired?.take(id);
      if (beforeLine?.equals(line) === true) return;
      if (beforeLine === undefined) this.flips.get(file)?.add(id);
      const hash = lineHash(line);
      this.emit(
        beforeLine === undefined ? 'added' : 'changed',
        recordKindOf(id),
        id,
        file,
        hash,
        beforeLine === undefined ? undefined : lineHash(beforeLine),
      );
      return;
    }
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
    let removed: Removed[];
    this.citations?.close();
    if (this.streaming) {
      for (const file of this.previous.recordFiles ?? []) this.pairedFile(file)?.finish();
      removed = this.removed;
    } else
      removed = [...this.remaining.entries()].map(([key, hash]) => {
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

  /** Closes the previous version's files still open (after a failed compile). */
  abandon(): void {
    this.citations?.close();
    for (const paired of this.paired.values()) paired?.lines.close();
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
