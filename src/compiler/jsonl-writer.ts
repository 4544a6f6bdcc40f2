import { createHash } from 'node:crypto';
import { z, ZodObject } from 'zod';
import { compiledSchema } from '../platform/contract/index.js';
import { AppError } from '../platform/errors/index.js';
import { UUID_PATTERN } from '../ingest/graph/index.js';
import { type CopiedKey, type LinePrevious, type NodeSink, type WrittenFile, TrackedFile } from './sink.js';

/**
 * Names a uuid that stands where a stable id is required (id, *_id, *_ids), or null. A uuid
 * there is a publish-integrity failure (node.uuid_leak, docs/contract.md#stable-ids), checked before the schema so
 * the failure carries its own code. `keys`: the record's keys when the caller knows them.
 */
export function findUuidLeak(
  record: Record<string, unknown>,
  keys: readonly string[] = Object.keys(record),
): string | null {
  for (const key of keys) {
    if (!isIdKey(key)) continue;
    const value = record[key];
    if (Array.isArray(value)) {
      for (const v of value) if (isUuidLike(v)) return `${key}=${v}`;
    } else if (isUuidLike(value)) return `${key}=${value}`;
  }
  return null;
}

function isIdKey(key: string): boolean {
  return key === 'id' || key === '@id' || key.endsWith('_id') || key.endsWith('_ids');
}

/** Every uuid has a dash: most ids are ruled out without the pattern. */
function isUuidLike(value: unknown): boolean {
  return typeof value === 'string' && value.includes('-') && UUID_PATTERN.test(value);
}

const idKeysCache = new WeakMap<z.ZodType, readonly string[] | null>();

/**
 * The id keys a record of a strict object schema can have, or null for other schemas. A record
 * that passed the schema has no other keys, so only these need the uuid check.
 */
function idKeysOf(schema: z.ZodType): readonly string[] | null {
  let keys = idKeysCache.get(schema);
  if (keys === undefined) {
    const strict = schema instanceof ZodObject && schema.def.catchall?._zod.def.type === 'never';
    keys = strict ? Object.keys(schema.shape).filter(isIdKey) : null;
    idKeysCache.set(schema, keys);
  }
  return keys;
}

/** Why a record fails its schema: the first issue's field path and message. */
export interface SchemaProblem {
  /** Dotted field path of the first issue ("" for the record itself). */
  path: string;
  message: string;
  /** Every issue, for an error's details (at most 20). */
  issues: z.core.$ZodIssue[];
}

/**
 * Checks one record against its schema: null when it passes, else the problem. A uuid where a
 * stable id is required is not a schema problem but an integrity failure: it throws
 * node.uuid_leak. Valid records take zod's compiled path; the runtime parser explains the others.
 */
export function checkRecord(schema: z.ZodType, record: unknown, where: string): SchemaProblem | null {
  const passed = compiledSchema(schema).validate(record);
  if (record !== null && typeof record === 'object') {
    const leak = findUuidLeak(record as Record<string, unknown>, (passed ? idKeysOf(schema) : null) ?? undefined);
    if (leak !== null)
      throw new AppError('node.uuid_leak', `${where}: a uuid stands where a stable id is required (${leak})`);
  }
  if (passed) return null;
  const parsed = schema.safeParse(record);
  if (parsed.success) return null;
  const issues = parsed.error.issues;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more issue${issues.length > 2 ? 's' : ''})` : '';
  return { path: issues[0]!.path.join('.'), message: issues[0]!.message + more, issues: issues.slice(0, 20) };
}

/**
 * Validates one record or document against its schema; throws publish.validation_failed naming
 * the file and line (node.uuid_leak for a uuid in an id field).
 */
export function assertValid(schema: z.ZodType, record: unknown, where: string): void {
  const problem = checkRecord(schema, record, where);
  if (problem === null) return;
  const problems = problem.issues
    .slice(0, 5)
    .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
    .join('; ');
  throw new AppError('publish.validation_failed', `${where} fails its schema: ${problems}`, {
    details: { where, issues: problem.issues },
  });
}

/** Gets each written record line (its UTF-8 bytes, valid during the call); changes.jsonl is built from it. */
export type LineObserver = (file: string, id: string, line: Buffer) => void;

/**
 * What a record file's writer is told of the previous version (the compile's ChangeLog):
 * `observe` gets each written line; `unchanged` says whether a line is the same bytes as the
 * record's validated line in the previous version, so its schema check can be skipped.
 */
export interface PreviousLineTracker {
  observe: LineObserver;
  unchanged?: (file: string, id: string, line: Buffer) => boolean;
  /** For a line written without an id (citations.jsonl): whether it is the bytes of a line of the validated previous version. */
  sameLine?: (file: string, line: Buffer) => boolean;
  /** Whether record `id` of `file` had a line in that validated previous version (false when that is not known). */
  existed?: (file: string, id: string) => boolean;
}

const NULL_BYTES = Buffer.from('null');

/** A .jsonl node file: validates every record before it is written, one line each. */
export class JsonlWriter<T extends object> {
  private readonly file: TrackedFile;
  /** The UTF-8 bytes of the line being written: compared with the previous version's, then written. */
  private encoded = Buffer.allocUnsafe(1 << 12);
  private lastId: string | null = null;
  /** What the line last written was in the validated previous version. */
  lastPrevious: LinePrevious = 'other';
  private readonly observe: LineObserver | undefined;
  private readonly unchanged: PreviousLineTracker['unchanged'];
  private readonly sameLine: PreviousLineTracker['sameLine'];
  private readonly existed: PreviousLineTracker['existed'];

  constructor(
    sink: NodeSink,
    readonly path: string,
    private readonly schema: z.ZodType,
    previous?: LineObserver | PreviousLineTracker,
  ) {
    this.file = new TrackedFile(sink, path);
    this.observe = typeof previous === 'function' ? previous : previous?.observe;
    this.unchanged = typeof previous === 'function' ? undefined : previous?.unchanged;
    this.sameLine = typeof previous === 'function' ? undefined : previous?.sameLine;
    this.existed = typeof previous === 'function' ? undefined : previous?.existed;
  }

  get count(): number {
    return this.file.lineCount;
  }

  /** Validates and writes `record`; a record that fails its schema throws (a compiler bug, not data). */
  add(record: T, id?: string): void {
    const bytes = this.encode(JSON.stringify(record));
    const unchanged = this.isUnchanged(id, bytes);
    if (!unchanged) assertValid(this.schema, record, this.where());
    this.write(bytes, record, this.previousOf(id, unchanged), id);
  }

  /**
   * Writes `record` when it passes its schema (and `policy`, checked after the schema) and
   * returns null; otherwise writes nothing and returns the problem, so one bad graph record is
   * left out instead of failing the node. A uuid leak still throws.
   */
  offer(record: T, id: string, policy?: (record: T) => SchemaProblem | null): SchemaProblem | null {
    const bytes = this.encode(JSON.stringify(record));
    const unchanged = this.isUnchanged(id, bytes);
    const problem = (unchanged ? null : checkRecord(this.schema, record, this.where())) ?? policy?.(record) ?? null;
    if (problem === null) this.write(bytes, record, this.previousOf(id, unchanged), id);
    return problem;
  }

  /**
   * Writes a line of the validated previous version as it is (its record not built again): the
   * caller knows the record it stands for is the same bytes. `id`: the record's, for a record
   * file (in id order, as `add`); `key`: a fact's key fields, which a check then need not parse.
   */
  addSame(line: Buffer, id?: string, key?: CopiedKey): void {
    this.write(line, null, 'same', id, key);
  }

  /**
   * The line is the one the record had in a validated previous version: the same bytes passed
   * the same checks. A line holding null is always checked: JSON.stringify writes a number that
   * is not finite (which fails its schema) as null, so such a line may stand for another record.
   */
  private isUnchanged(id: string | undefined, bytes: Buffer): boolean {
    if (id === undefined ? this.sameLine === undefined : this.unchanged === undefined) return false;
    if (bytes.includes(NULL_BYTES)) return false;
    return id === undefined ? this.sameLine!(this.path, bytes) : this.unchanged!(this.path, id, bytes);
  }

  /** `line` as UTF-8, in a buffer reused for the next line. */
  private encode(line: string): Buffer {
    // A UTF-16 code unit takes at most 3 bytes.
    if (line.length * 3 > this.encoded.length) this.encoded = Buffer.allocUnsafe(line.length * 3);
    return this.encoded.subarray(0, this.encoded.write(line, 0, 'utf8'));
  }

  private previousOf(id: string | undefined, unchanged: boolean): LinePrevious {
    if (unchanged) return 'same';
    return id !== undefined && this.existed?.(this.path, id) === true ? 'changed' : 'other';
  }

  private where(): string {
    return `${this.path} line ${this.file.lineCount + 1}`;
  }

  private write(line: Buffer, record: T | null, previous: LinePrevious, id?: string, key?: CopiedKey): void {
    this.file.writeLine(line, record, previous, id, key);
    this.lastPrevious = previous;
    if (id !== undefined) {
      if (this.lastId !== null && id <= this.lastId)
        throw new Error(`${this.path}: records out of id order (${this.lastId} then ${id})`);
      this.lastId = id;
      this.observe?.(this.path, id, line);
    }
  }

  close(): WrittenFile {
    return this.file.close();
  }
}

export function lineHash(line: string | Uint8Array): string {
  return 'sha256:' + createHash('sha256').update(line).digest('hex');
}
