import { createHash, type Hash } from 'node:crypto';
import { z } from 'zod';
import { IdSet } from '../id-set.js';
import { factIdOf } from '../../ingest/graph/index.js';
import type { CopiedKey } from '../sink.js';
import { type ManifestFile, schemaForPath } from '../../platform/node-format/index.js';
import {
  fileKind,
  idKind,
  IssueList,
  missingFileIssue,
  recordIssues,
  REFERENCE_FIELDS,
  type RefKind,
  type ValidationIssue,
} from './checks.js';
import type { NodeSource } from './node-source.js';

/** Files whose records define the ids other files refer to, in the order they are read. */
export const RECORD_ORDER = ['sources', 'entities', 'facts', 'relationships', 'chunks', 'qa'];

/** A file's place in the read order: its kind's in RECORD_ORDER, after them every other file. */
export function fileRank(path: string): number {
  const i = RECORD_ORDER.indexOf(fileKind(path));
  return i < 0 ? RECORD_ORDER.length : i;
}

/**
 * Whether a file's records define the ids others refer to (a
 * file of RECORD_ORDER's kinds): the files after them do not.
 */
export function definesIds(path: string): boolean {
  return fileRank(path) < RECORD_ORDER.length;
}

/** The order validateNode reads a node's files in: by fileRank, then by path. */
export function compareInReadOrder(a: string, b: string): number {
  return fileRank(a) - fileRank(b) || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * What the files read so far define: record ids by the kind their prefix names (idKind), and
 * (subject, predicate, language) of facts. `record` holds the ids of no such kind (relationships',
 * Q&A's): each id is in one set, and a reference to any record looks in its prefix's (recordIdIn).
 * Both grow with the node, so ids are kept in IdSets (FactKeys too).
 */
export interface NodeIds {
  ids: Record<RefKind, IdSet>;
  factKeys: FactKeys;
  /** With the website's id known: the facts whose id is derived from their key keep no key (DerivedFacts). */
  derived?: DerivedFacts;
}

/** `websiteId`: the website the node is of, when known (DerivedFacts); the answers are the same without it. */
export function emptyNodeIds(websiteId?: string): NodeIds {
  return {
    ids: { entity: new IdSet(), fact: new IdSet(), source: new IdSet(), chunk: new IdSet(), record: new IdSet() },
    factKeys: new FactKeys(),
    ...(websiteId === undefined ? {} : { derived: new DerivedFacts(websiteId) }),
  };
}

/**
 * One fact per (subject, predicate, language) told by ids instead of keys. The compiler derives a
 * fact's id from its website and key (factIdOf, a sha256), so two facts of one such key have one
 * id, and the node's fact ids, which the check holds anyway, answer for their keys: only a fact
 * whose id is not so derived keeps its key (in factKeys) and its id (in `others`). On a large node
 * the keys were the largest part of what the check held (docs/performance.md). The answers are
 * FactKeys' alone, assuming no two keys share an id's 96 bits (as the ids themselves do).
 */
export class DerivedFacts {
  /** Ids of the fact kind claimed by a record whose id is not derived from its key. */
  readonly others = new IdSet();

  constructor(readonly websiteId: string) {}

  /** The id derived from a key's parts, or undefined when a part holds a NUL or a unit separator (the parts would not be its only reading). */
  idOf(subject: string, predicate: string, language: string): string | undefined {
    return SEPARATORS.test(subject) || SEPARATORS.test(predicate) || SEPARATORS.test(language)
      ? undefined
      : factIdOf(this.websiteId, subject, predicate, language);
  }
}

/** The characters that join a fact key's parts (NUL) and a stable id's hashed parts (unit separator). */
const SEPARATORS = /[\u0000\u001f]/;

/**
 * A set of fact keys (`subject\0predicate\0language`, the subject most often an entity id): each
 * key is cut before its last two NULs, and the part before (the subject) is kept in an IdSet of
 * the part after. Two keys are the same string exactly when both parts are, so the answers are a
 * Set<string>'s, at 16 bytes a key with an entity id where the joined string cost 130.
 */
export class FactKeys {
  private readonly byTail = new Map<string, IdSet>();
  /** Keys added. */
  size = 0;

  has(key: string): boolean {
    const cut = cutOf(key);
    return this.byTail.get(key.slice(cut))?.has(key.slice(0, cut)) ?? false;
  }

  /** Adds `key`; true when it was not here before (one lookup). */
  addNew(key: string): boolean {
    const cut = cutOf(key);
    return this.addNewParts(key.slice(0, cut), key.slice(cut));
  }

  /**
   * addNew of the key `subject\0predicate\0language` given as its parts, not joined: the caller
   * knows the subject holds no NUL, so the cut falls where `tail` (`\0predicate\0language`) begins.
   */
  addNewParts(subject: string, tail: string): boolean {
    let heads = this.byTail.get(tail);
    if (heads === undefined) this.byTail.set(tail, (heads = new IdSet()));
    if (!heads.addNew(subject)) return false;
    this.size++;
    return true;
  }
}

/** Where a fact key's last two NULs begin (0 when it has fewer). */
function cutOf(key: string): number {
  const last = key.lastIndexOf('\u0000');
  return last <= 0 ? 0 : Math.max(0, key.lastIndexOf('\u0000', last - 1));
}

/**
 * How one file is checked, worked out once per file (not per record). `trusted`: the bytes are
 * known to have passed the record checks before (a store's validated copy), so each record is
 * only parsed for its ids and references; encoding, checksum and cross-file checks still run.
 */
export interface FileRules {
  path: string;
  kind: string;
  lineSchema: { name: string; schema: z.ZodType } | undefined;
  definesIds: boolean;
  isFacts: boolean;
  references: Array<[field: string, kind: RefKind]>;
  trusted: boolean;
  /**
   * The records passed their line schema when they were written (validateNode's
   * recordsPassedSchemas): the schema is not run again; the other record checks are.
   */
  schemaPassed: boolean;
}

/**
 * Line schemas compiled ahead of time (z.compile), once per process: valid records take the
 * faster compiled path (docs/decisions.md), invalid ones fall back to the regular parser,
 * so the issues reported are the same.
 */
const compiledLineSchemas = new Map<string, z.ZodType>();

function compiledLineSchema(name: string, schema: z.ZodType): z.ZodType {
  let compiled = compiledLineSchemas.get(name);
  if (compiled === undefined) compiledLineSchemas.set(name, (compiled = z.compile(schema)));
  return compiled;
}

export function rulesOf(path: string, trusted: boolean, schemaPassed: boolean): FileRules {
  const kind = fileKind(path);
  const entry = schemaForPath(path);
  return {
    path,
    kind,
    trusted,
    schemaPassed,
    lineSchema:
      entry !== undefined && entry.shape === 'line'
        ? { name: entry.name, schema: compiledLineSchema(entry.name, entry.schema) }
        : undefined,
    definesIds: definesIds(path),
    isFacts: kind === 'facts',
    references: REFERENCE_FIELDS[kind] ?? [],
  };
}

/** The outcome of reading one file: its records, and its text when it is not JSONL (checked later). */
export interface ScannedFile {
  records: number;
  text: string | null;
}

/**
 * Where a FileScan sends what it finds, line by line: an issue of the file itself, or a record
 * whose ids and references are still to be checked against the node (checkAgainstNode).
 */
export interface ScanEvents {
  issue(issue: ValidationIssue): void;
  record(record: Record<string, unknown>, line: number): void;
}

/** What a FileScan measured over a file's bytes: compared with its manifest entry by checkMeasured. */
export interface MeasuredFile extends ScannedFile {
  jsonl: boolean;
  encodingOk: boolean;
  bytes: number;
  /** sha256 of the bytes, when the scan hashed them. */
  checksum: string | null;
}

/**
 * The checks of one file's bytes, fed chunk by chunk (from a file read back, or as the compiler
 * writes them): UTF-8, LF endings, and for .jsonl every line (one object each, the record checks).
 * Chunk boundaries do not matter: the same bytes give the same findings in the same order.
 */
export class FileScan {
  private readonly hash: Hash | null;
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  private readonly text: string[] | null;
  private bytes = 0;
  private carry = '';
  private line = 0;
  private encodingOk = true;
  private sawCr = false;

  constructor(
    readonly rules: FileRules,
    private readonly events: ScanEvents,
    hashBytes: boolean,
  ) {
    this.hash = hashBytes ? createHash('sha256') : null;
    this.text = rules.path.endsWith('.jsonl') ? null : [];
    this.binary = isBinaryNodeFile(rules.path);
  }

  private readonly binary: boolean;

  push(chunk: Uint8Array): void {
    this.hash?.update(chunk);
    this.bytes += chunk.length;
    // A binary file is measured only: its size is checked against its manifest (text-files.ts).
    if (!this.encodingOk || this.binary) return;
    let decoded: string;
    try {
      decoded = this.decoder.decode(chunk, { stream: true });
    } catch {
      this.encodingOk = false;
      this.events.issue({
        code: 'file.encoding',
        severity: 'error',
        file: this.rules.path,
        message: 'not valid UTF-8',
      });
      return;
    }
    if (!this.sawCr && decoded.includes('\r')) this.sawCr = true;
    if (this.text !== null) {
      this.text.push(decoded);
      return;
    }
    const parts = (this.carry + decoded).split('\n');
    this.carry = parts.pop()!;
    for (const part of parts) this.onLine(part);
  }

  /** The file is complete: its last findings (line endings, a last line without a line feed), and what was measured. */
  end(): MeasuredFile {
    const path = this.rules.path;
    if (this.sawCr)
      this.events.issue({
        code: 'file.crlf',
        severity: 'error',
        file: path,
        message: 'contains carriage returns; node files use LF line endings',
      });
    if (this.text === null && this.encodingOk && this.carry !== '') {
      this.onLine(this.carry);
      this.events.issue({
        code: 'jsonl.final_newline',
        severity: 'error',
        file: path,
        line: this.line,
        message: 'the last line does not end with a line feed',
      });
    }
    return {
      records: this.line,
      text: this.text !== null && this.encodingOk && !this.binary ? this.text.join('') : null,
      jsonl: this.text === null,
      encodingOk: this.encodingOk,
      bytes: this.bytes,
      checksum: this.hash === null ? null : 'sha256:' + this.hash.digest('hex'),
    };
  }

  private onLine(raw: string): void {
    const { path } = this.rules;
    const line = ++this.line;
    if (raw === '')
      return this.events.issue({
        code: 'jsonl.blank_line',
        severity: 'error',
        file: path,
        line,
        message: 'blank line; JSONL files hold exactly one object per line',
      });
    let record: unknown;
    try {
      record = JSON.parse(raw);
    } catch (error) {
      return this.events.issue({
        code: 'json.invalid',
        severity: 'error',
        file: path,
        line,
        message: `not JSON: ${(error as Error).message}`,
      });
    }
    if (record === null || typeof record !== 'object' || Array.isArray(record))
      return this.events.issue({
        code: 'jsonl.not_object',
        severity: 'error',
        file: path,
        line,
        message: 'each line must be one JSON object',
      });
    checkRecordItself(this.rules, record as Record<string, unknown>, line, this.events);
    this.events.record(record as Record<string, unknown>, line);
  }
}

/** A node file of bytes, not text (embeddings.f32): never decoded, split into lines or parsed. */
export function isBinaryNodeFile(path: string): boolean {
  return path.endsWith('.f32');
}

/** A file's measured size, checksum and line count against its manifest entry. */
export function checkMeasured(entry: ManifestFile, measured: MeasuredFile, issues: IssueList): void {
  if (measured.jsonl && measured.encodingOk && entry.records !== undefined && entry.records !== measured.records)
    issues.add({
      code: 'manifest.records_mismatch',
      severity: 'error',
      file: entry.path,
      message: `manifest says ${entry.records} records, the file has ${measured.records}`,
    });
  if (measured.checksum !== entry.checksum)
    issues.add({
      code: 'file.checksum_mismatch',
      severity: 'error',
      file: entry.path,
      message: `checksum is ${measured.checksum}, manifest says ${entry.checksum}`,
    });
  if (measured.bytes !== entry.bytes)
    issues.add({
      code: 'file.bytes_mismatch',
      severity: 'error',
      file: entry.path,
      message: `${measured.bytes} bytes, manifest says ${entry.bytes}`,
    });
}

/**
 * Reads one manifest file from `source` once: every check of FileScan, each record against the
 * ids of the files read before it, and checksum, size and records against the manifest entry.
 * Returns null when the file is missing.
 */
export async function scanFile(
  source: NodeSource,
  entry: ManifestFile,
  found: NodeIds,
  issues: IssueList,
  trusted = false,
  schemaPassed = false,
): Promise<ScannedFile | null> {
  const stream = await source.open(entry.path);
  if (stream === null) {
    issues.add(missingFileIssue(entry.path));
    return null;
  }
  const rules = rulesOf(entry.path, trusted, schemaPassed);
  const scan = new FileScan(
    rules,
    {
      issue: (issue) => issues.add(issue),
      record: (record, line) => checkAgainstNode(rules, record, line, found, issues),
    },
    true,
  );
  for await (const chunk of stream) scan.push(chunk);
  const measured = scan.end();
  checkMeasured(entry, measured, issues);
  return { records: measured.records, text: measured.text };
}

/** The checks of a record on its own: uuid leaks, internal fields, its line schema. */
function checkRecordItself(rules: FileRules, record: Record<string, unknown>, line: number, events: ScanEvents): void {
  if (rules.trusted) return;
  const { path } = rules;
  for (const issue of recordIssues(record, path, line)) events.issue(issue);
  if (rules.lineSchema !== undefined && !rules.schemaPassed) {
    const parsed = rules.lineSchema.schema.safeParse(record);
    if (!parsed.success) {
      const detail = parsed.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join('.') || '(line)'}: ${i.message}`)
        .join('; ');
      events.issue({
        code: 'schema.invalid',
        severity: 'error',
        file: path,
        line,
        message: `fails schemas/${rules.lineSchema.name}.schema.json: ${detail}`,
      });
    }
  }
}

/** Whether `id` is a record id of the node, of any kind. */
function recordIdIn(ids: NodeIds['ids'], id: string): boolean {
  return ids[idKind(id) ?? 'record'].has(id);
}

/** A record's id joins the node's ids: a second record of the same id is jsonl.duplicate_id (and false). */
function claimId(path: string, id: string, line: number, found: NodeIds, issues: IssueList): boolean {
  const k = idKind(id);
  if (k === null) return (found.ids.record.add(id), true);
  if (found.ids[k].addNew(id)) return true;
  issues.add({ code: 'jsonl.duplicate_id', severity: 'error', file: path, line, message: `${id} appears twice` });
  return false;
}

/**
 * Adds a fact's key (its parts as strings); false when a fact of that key came before. `id` was
 * claimed just before (`idWasNew`: it was not among the node's ids then). With the website known
 * (DerivedFacts), a fact whose id is derived from its key keeps nothing more: an earlier fact of
 * the key is an earlier derived fact of the same id, or a fact kept by key. Any other fact is kept
 * by key, and meets an earlier derived fact of its key through the id derived from it.
 */
function addFactKey(
  found: NodeIds,
  id: unknown,
  idWasNew: boolean,
  subject: string,
  predicate: string,
  language: string,
): boolean {
  const { derived, factKeys } = found;
  const key = () => `${subject}\u0000${predicate}\u0000${language}`;
  if (derived === undefined) return factKeys.addNew(key());
  const derivedId = derived.idOf(subject, predicate, language);
  if (derivedId !== undefined && derivedId === id) {
    // The common case on a node of this compiler's: no key is joined at all.
    const earlierDerived = !idWasNew && !derived.others.has(derivedId);
    return !earlierDerived && (factKeys.size === 0 || !factKeys.has(key()));
  }
  if (typeof id === 'string' && idKind(id) === 'fact') derived.others.add(id);
  const added = factKeys.addNew(key());
  return added && (derivedId === undefined || !found.ids.fact.has(derivedId) || derived.others.has(derivedId));
}

function supersededFact(path: string, subject: unknown, predicate: unknown, line: number, issues: IssueList): void {
  issues.add({
    code: 'export.superseded_fact',
    severity: 'error',
    file: path,
    line,
    message: `a second fact for (${String(subject)}, ${String(predicate)}); only the surviving fact may be emitted (export rule 2)`,
  });
}

/**
 * checkAgainstNode of a fact line copied from the validated live version, known by its id and key
 * fields alone (its references were checked there): no record is built for it, and its key is
 * not joined into one string.
 */
export function checkCopiedFact(
  path: string,
  id: string,
  key: CopiedKey,
  line: number,
  found: NodeIds,
  issues: IssueList,
): void {
  const idWasNew = claimId(path, id, line, found, issues);
  if (found.derived !== undefined) {
    if (!addFactKey(found, id, idWasNew, key.subject_entity_id, key.predicate, key.language))
      supersededFact(path, key.subject_entity_id, key.predicate, line, issues);
    return;
  }
  const tail = `\u0000${key.predicate}\u0000${key.language}`;
  // With a NUL in the subject or predicate the joined key is cut elsewhere: addNew cuts it as a written line's is.
  const added =
    key.subject_entity_id.includes('\u0000') || key.predicate.includes('\u0000')
      ? found.factKeys.addNew(key.subject_entity_id + tail)
      : found.factKeys.addNewParts(key.subject_entity_id, tail);
  if (!added) supersededFact(path, key.subject_entity_id, key.predicate, line, issues);
}

/** The fields of a record checkAgainstNode reads: a record reduced to them is checked the same. */
export function nodeFieldsOf(rules: FileRules): readonly string[] {
  return [
    ...(rules.definesIds ? ['id'] : []),
    ...(rules.isFacts ? FACT_KEY_FIELDS : []),
    ...rules.references.map(([field]) => field),
  ];
}

const FACT_KEY_FIELDS = ['subject_entity_id', 'subject', 'predicate', 'language'];

/**
 * The checks of a record against the node: its id is new (and joins the node's ids), a fact is
 * the only one of its (subject, predicate, language), and its references resolve to the ids
 * of the files read before it.
 */
export function checkAgainstNode(
  rules: FileRules,
  record: Record<string, unknown>,
  line: number,
  found: NodeIds,
  issues: IssueList,
): void {
  const { path } = rules;
  const { ids } = found;
  const idWasNew = rules.definesIds && typeof record.id === 'string' && claimId(path, record.id, line, found, issues);
  if (found.derived !== undefined && !rules.isFacts && typeof record.id === 'string' && idKind(record.id) === 'fact')
    found.derived.others.add(record.id);
  if (rules.isFacts) {
    const subject = String(record.subject_entity_id ?? record.subject);
    if (!addFactKey(found, record.id, idWasNew, subject, String(record.predicate), String(record.language)))
      supersededFact(path, record.subject, record.predicate, line, issues);
  }
  for (const [field, target] of rules.references) {
    const value = record[field];
    if (value === undefined) continue;
    for (const ref of Array.isArray(value) ? value : [value]) {
      if (typeof ref === 'string' && !(target === 'record' ? recordIdIn(ids, ref) : ids[target].has(ref))) {
        issues.add({
          code: 'ref.dangling',
          severity: 'error',
          file: path,
          line,
          message: `${field} ${ref} does not resolve to a ${target} of this node`,
        });
      }
    }
  }
}
