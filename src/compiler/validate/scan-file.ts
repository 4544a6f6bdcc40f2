import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { ManifestFile } from '../../node-format/index.js';
import { schemaForPath } from '../../node-format/index.js';
import { fileKind, idKind, IssueList, recordIssues, REFERENCE_FIELDS, type RefKind } from './checks.js';
import type { NodeSource } from './node-source.js';

/** Files whose records define the ids other files refer to, in the order they are read. */
export const RECORD_ORDER = ['sources', 'entities', 'facts', 'relationships', 'chunks', 'qa'];

/** What the files read so far define: record ids by kind, and (subject, predicate, language) of facts. */
export interface NodeIds {
  ids: Record<RefKind, Set<string>>;
  factKeys: Set<string>;
}

export function emptyNodeIds(): NodeIds {
  return { ids: { entity: new Set(), fact: new Set(), source: new Set(), chunk: new Set(), record: new Set() }, factKeys: new Set() };
}

/**
 * How one file is checked, worked out once per file (not per record). `trusted`: the bytes are
 * known to have passed the record checks before (a store's validated copy), so each record is
 * only parsed for its ids and references; encoding, checksum and cross-file checks still run.
 */
interface FileRules {
  path: string;
  kind: string;
  lineSchema: { name: string; schema: z.ZodType } | undefined;
  definesIds: boolean;
  isFacts: boolean;
  references: Array<[field: string, kind: RefKind]>;
  trusted: boolean;
  /** The records passed their line schema when they were written (validateNode's recordsPassedSchemas): the schema is not run again; the other record checks are. */
  schemaPassed: boolean;
}

/**
 * Line schemas compiled ahead of time (z.compile), once per process: valid records take the
 * compiled path (about 5x faster on a large node), invalid ones fall back to the regular parser,
 * so the issues reported are the same.
 */
const compiledLineSchemas = new Map<string, z.ZodType>();

function compiledLineSchema(name: string, schema: z.ZodType): z.ZodType {
  let compiled = compiledLineSchemas.get(name);
  if (compiled === undefined) compiledLineSchemas.set(name, (compiled = z.compile(schema)));
  return compiled;
}

function rulesOf(path: string, trusted: boolean, schemaPassed: boolean): FileRules {
  const kind = fileKind(path);
  const entry = schemaForPath(path);
  return {
    path, kind, trusted, schemaPassed,
    lineSchema: entry !== undefined && entry.shape === 'line' ? { name: entry.name, schema: compiledLineSchema(entry.name, entry.schema) } : undefined,
    definesIds: RECORD_ORDER.includes(kind),
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
 * Reads one manifest file once: checksum and size against the manifest, UTF-8, LF endings, and
 * for .jsonl every line (one object each, record checks, ids, references against the ids of the
 * files read before it). Returns null when the file is missing.
 */
export async function scanFile(source: NodeSource, entry: ManifestFile, found: NodeIds, issues: IssueList, trusted = false, schemaPassed = false): Promise<ScannedFile | null> {
  const stream = await source.open(entry.path);
  if (stream === null) {
    issues.add({ code: 'file.missing', severity: 'error', file: entry.path, message: 'listed in manifest.json but not found' });
    return null;
  }
  const rules = rulesOf(entry.path, trusted, schemaPassed);
  const hash = createHash('sha256');
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let bytes = 0;
  let carry = '';
  let line = 0;
  const text: string[] | null = entry.path.endsWith('.jsonl') ? null : [];
  let encodingOk = true;
  let sawCr = false;
  const onLine = (raw: string) => {
    line++;
    if (raw === '') return issues.add({ code: 'jsonl.blank_line', severity: 'error', file: entry.path, line, message: 'blank line; JSONL files hold exactly one object per line' });
    let record: unknown;
    try {
      record = JSON.parse(raw);
    } catch (error) {
      return issues.add({ code: 'json.invalid', severity: 'error', file: entry.path, line, message: `not JSON: ${(error as Error).message}` });
    }
    if (record === null || typeof record !== 'object' || Array.isArray(record)) return issues.add({ code: 'jsonl.not_object', severity: 'error', file: entry.path, line, message: 'each line must be one JSON object' });
    checkRecord(rules, record as Record<string, unknown>, line, found, issues);
  };
  for await (const chunk of stream) {
    hash.update(chunk);
    bytes += chunk.length;
    if (!encodingOk) continue;
    let decoded: string;
    try {
      decoded = decoder.decode(chunk, { stream: true });
    } catch {
      encodingOk = false;
      issues.add({ code: 'file.encoding', severity: 'error', file: entry.path, message: 'not valid UTF-8' });
      continue;
    }
    if (!sawCr && decoded.includes('\r')) sawCr = true;
    if (text !== null) {
      text.push(decoded);
      continue;
    }
    const parts = (carry + decoded).split('\n');
    carry = parts.pop()!;
    for (const part of parts) onLine(part);
  }
  if (sawCr) issues.add({ code: 'file.crlf', severity: 'error', file: entry.path, message: 'contains carriage returns; node files use LF line endings' });
  if (text === null && encodingOk) {
    if (carry !== '') {
      onLine(carry);
      issues.add({ code: 'jsonl.final_newline', severity: 'error', file: entry.path, line, message: 'the last line does not end with a line feed' });
    }
    if (entry.records !== undefined && entry.records !== line) issues.add({ code: 'manifest.records_mismatch', severity: 'error', file: entry.path, message: `manifest says ${entry.records} records, the file has ${line}` });
  }
  const checksum = 'sha256:' + hash.digest('hex');
  if (checksum !== entry.checksum) issues.add({ code: 'file.checksum_mismatch', severity: 'error', file: entry.path, message: `checksum is ${checksum}, manifest says ${entry.checksum}` });
  if (bytes !== entry.bytes) issues.add({ code: 'file.bytes_mismatch', severity: 'error', file: entry.path, message: `${bytes} bytes, manifest says ${entry.bytes}` });
  return { records: line, text: text !== null && encodingOk ? text.join('') : null };
}

function checkRecord(rules: FileRules, record: Record<string, unknown>, line: number, found: NodeIds, issues: IssueList): void {
  const { path } = rules;
  if (!rules.trusted) {
    for (const issue of recordIssues(record, path, line)) issues.add(issue);
    if (rules.lineSchema !== undefined && !rules.schemaPassed) {
      const parsed = rules.lineSchema.schema.safeParse(record);
      if (!parsed.success) {
        const detail = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(line)'}: ${i.message}`).join('; ');
        issues.add({ code: 'schema.invalid', severity: 'error', file: path, line, message: `fails schemas/${rules.lineSchema.name}.schema.json: ${detail}` });
      }
    }
  }
  const { ids } = found;
  if (rules.definesIds && typeof record.id === 'string') {
    const id = record.id;
    const k = idKind(id);
    if (k !== null) {
      if (ids[k].has(id)) issues.add({ code: 'jsonl.duplicate_id', severity: 'error', file: path, line, message: `${id} appears twice` });
      ids[k].add(id);
    }
    ids.record.add(id);
  }
  if (rules.isFacts) {
    const key = `${String(record.subject_entity_id ?? record.subject)}\u0000${String(record.predicate)}\u0000${String(record.language)}`;
    if (found.factKeys.has(key)) issues.add({ code: 'export.superseded_fact', severity: 'error', file: path, line, message: `a second fact for (${String(record.subject)}, ${String(record.predicate)}); only the surviving fact may be emitted (export rule 2)` });
    found.factKeys.add(key);
  }
  for (const [field, target] of rules.references) {
    const value = record[field];
    if (value === undefined) continue;
    for (const ref of Array.isArray(value) ? value : [value]) {
      if (typeof ref === 'string' && !ids[target].has(ref)) {
        issues.add({ code: 'ref.dangling', severity: 'error', file: path, line, message: `${field} ${ref} does not resolve to a ${target} of this node` });
      }
    }
  }
}
