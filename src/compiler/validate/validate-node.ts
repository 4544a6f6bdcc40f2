import { createHash } from 'node:crypto';
import { capabilitiesOf, PLANS } from '../../site/types.js';
import { ManifestSchema, schemaForPath, type Manifest } from '../../node-format/index.js';
import { contentTypeOf, isImmutable } from '../documents.js';
import { LLMS_FULL_BUDGET } from '../llms.js';
import { fileKind, idKind, IssueList, recordIssues, REFERENCE_FIELDS, type RefKind, type ValidationIssue } from './checks.js';
import { openNodeSource, type NodeSource } from './node-source.js';
import { checkTextFile } from './text-files.js';

export type { ValidationIssue } from './checks.js';

/** The outcome of validateNode: ok is false when any error was found. */
export interface ValidationReport {
  ok: boolean;
  location: string;
  nodeVersion: string | null;
  nodeVersionLabel: string | null;
  domain: string | null;
  files: number;
  records: number;
  errors: ValidationIssue[];
  warnings: ValidationIssue[];
  /** Issue counts per code (including those left out of errors/warnings past 50 per code). */
  counts: Record<string, number>;
  truncated: boolean;
}

const RECORD_ORDER = ['sources', 'entities', 'facts', 'relationships', 'chunks', 'qa'];
const REQUIRED_FILES = ['ai.json', 'llms.txt', 'llms-full.txt', 'sources.jsonl', 'schema.jsonld', 'sitemap-ai.xml', 'priority-feed.jsonl', 'citations.jsonl', 'changes.jsonl', 'versions.json', 'mcp.json'];

/**
 * Checks any node as a consumer would, from a directory or a URL: the manifest and its file
 * checksums and sizes, the encoding and JSONL rules, every record against its schema, cross-file
 * references, uuid leaks (node.uuid_leak), internal fields, one fact per (subject, predicate,
 * language), plan-gated files, and the shape of llms.txt, llms-full.txt and sitemap-ai.xml.
 * Never throws for a bad node: everything found is in the report. A publisher must not publish
 * a node whose report is not ok.
 */
export async function validateNode(dirOrUrl: string): Promise<ValidationReport> {
  const source = openNodeSource(dirOrUrl);
  const issues = new IssueList();
  const report = (manifest: Manifest | null, records: number): ValidationReport => ({
    ok: issues.errors.length === 0, location: source.location, nodeVersion: manifest?.node_version ?? null, nodeVersionLabel: manifest?.node_version_label ?? null,
    domain: manifest?.domain ?? null, files: manifest === null ? 0 : manifest.files.length + 1, records, errors: issues.errors, warnings: issues.warnings, counts: issues.counts(), truncated: issues.truncated,
  });

  const manifestText = await readText(source, 'manifest.json');
  if (manifestText === null) {
    issues.add({ code: 'manifest.missing', severity: 'error', file: 'manifest.json', message: `no manifest.json at ${source.location}: a node's entry point is always manifest.json` });
    return report(null, 0);
  }
  let manifest: Manifest;
  try {
    const parsed = ManifestSchema.safeParse(JSON.parse(manifestText));
    if (!parsed.success) {
      for (const i of parsed.error.issues.slice(0, 20)) issues.add({ code: 'schema.invalid', severity: 'error', file: 'manifest.json', message: `${i.path.join('.') || '(root)'}: ${i.message}` });
      return report(null, 0);
    }
    manifest = parsed.data;
  } catch (error) {
    issues.add({ code: 'json.invalid', severity: 'error', file: 'manifest.json', message: `not JSON: ${(error as Error).message}` });
    return report(null, 0);
  }

  checkManifestShape(manifest, source, issues);
  const ids: Record<RefKind, Set<string>> = { entity: new Set(), fact: new Set(), source: new Set(), chunk: new Set(), record: new Set() };
  const factKeys = new Set<string>();
  const ordered = [...manifest.files].sort((a, b) => rank(a.path) - rank(b.path) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  let records = 0;
  const texts = new Map<string, string>();

  for (const entry of ordered) {
    const stream = await source.open(entry.path);
    if (stream === null) {
      issues.add({ code: 'file.missing', severity: 'error', file: entry.path, message: 'listed in manifest.json but not found' });
      continue;
    }
    const hash = createHash('sha256');
    const decoder = new TextDecoder('utf-8', { fatal: true });
    let bytes = 0;
    let carry = '';
    let line = 0;
    let text: string[] | null = entry.path.endsWith('.jsonl') ? null : [];
    let encodingOk = true;
    let sawCr = false;
    const onLine = (raw: string) => {
      line++;
      records++;
      const where = { file: entry.path, line };
      if (raw === '') return issues.add({ code: 'jsonl.blank_line', severity: 'error', ...where, message: 'blank line; JSONL files hold exactly one object per line' });
      let record: unknown;
      try {
        record = JSON.parse(raw);
      } catch (error) {
        return issues.add({ code: 'json.invalid', severity: 'error', ...where, message: `not JSON: ${(error as Error).message}` });
      }
      if (record === null || typeof record !== 'object' || Array.isArray(record)) return issues.add({ code: 'jsonl.not_object', severity: 'error', ...where, message: 'each line must be one JSON object' });
      checkRecord(entry.path, record as Record<string, unknown>, line, ids, factKeys, issues);
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
    if (text !== null && encodingOk) texts.set(entry.path, text.join(''));
  }

  for (const [path, text] of [...texts.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) checkTextFile(path, text, manifest, ids, issues);
  return report(manifest, records);
}

function rank(path: string): number {
  const i = RECORD_ORDER.indexOf(fileKind(path));
  return i < 0 ? RECORD_ORDER.length : i;
}

async function readText(source: NodeSource, path: string): Promise<string | null> {
  const stream = await source.open(path);
  if (stream === null) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

function checkManifestShape(manifest: Manifest, source: NodeSource, issues: IssueList): void {
  const paths = new Set(manifest.files.map((f) => f.path));
  if (paths.size !== manifest.files.length) issues.add({ code: 'manifest.duplicate_path', severity: 'error', file: 'manifest.json', message: 'a path is listed twice in files[]' });
  if (paths.has('manifest.json')) issues.add({ code: 'manifest.self_listed', severity: 'error', file: 'manifest.json', message: 'files[] must not list manifest.json itself' });
  const required = [...REQUIRED_FILES, ...manifest.languages.flatMap((l) => ['entities', 'facts', 'relationships', 'chunks', 'qa'].map((k) => `${k}.${l}.jsonl`))];
  for (const path of required) if (!paths.has(path)) issues.add({ code: 'file.required_missing', severity: 'error', file: path, message: 'required node file is not in manifest.json' });
  const caps = new Set(manifest.capabilities);
  const sorted = [...manifest.capabilities].sort();
  if (sorted.join() !== manifest.capabilities.join()) issues.add({ code: 'manifest.capabilities_unsorted', severity: 'error', file: 'manifest.json', message: 'capabilities must be sorted' });
  if (!PLANS.some((plan) => capabilitiesOf(plan).join() === sorted.join())) issues.add({ code: 'manifest.capabilities_unknown', severity: 'warning', file: 'manifest.json', message: `capabilities ${sorted.join(', ')} match no plan` });
  for (const gated of ['trust.json', 'openapi.json']) {
    if (paths.has(gated) && !caps.has('cap.advanced')) issues.add({ code: 'file.not_entitled', severity: 'error', file: gated, message: 'emitted without cap.advanced' });
  }
  if (paths.has('embeddings-manifest.json') && !(caps.has('cap.advanced') && caps.has('cap.embeddings'))) issues.add({ code: 'file.not_entitled', severity: 'error', file: 'embeddings-manifest.json', message: 'emitted without cap.advanced and cap.embeddings' });
  if (caps.has('cap.advanced') && !paths.has('trust.json')) issues.add({ code: 'file.required_missing', severity: 'error', file: 'trust.json', message: 'cap.advanced is present but trust.json is not' });
  if (!manifest.languages.includes(manifest.default_language)) issues.add({ code: 'manifest.default_language', severity: 'warning', file: 'manifest.json', message: `default_language ${manifest.default_language} is not among languages` });
  for (const f of manifest.files) {
    if (f.content_type !== contentTypeOf(f.path)) issues.add({ code: 'manifest.content_type', severity: 'warning', file: f.path, message: `content_type ${f.content_type}, expected ${contentTypeOf(f.path)}` });
    if (f.immutable !== isImmutable(f.path)) issues.add({ code: 'manifest.immutable', severity: 'error', file: f.path, message: `immutable is ${f.immutable}, expected ${isImmutable(f.path)}` });
    if (f.path.endsWith('.jsonl') && f.records === undefined) issues.add({ code: 'manifest.records_missing', severity: 'warning', file: f.path, message: 'a .jsonl entry should carry records' });
    if (schemaForPath(f.path) === undefined && !['llms.txt', 'llms-full.txt', 'sitemap-ai.xml'].includes(f.path)) issues.add({ code: 'file.unknown', severity: 'warning', file: f.path, message: 'not a node file this validator knows' });
  }
  const present = source.list();
  if (present !== null) {
    for (const name of present) if (name !== 'manifest.json' && !paths.has(name)) issues.add({ code: 'file.unlisted', severity: 'warning', file: name, message: 'present in the directory but not in manifest.json' });
  }
  void LLMS_FULL_BUDGET;
}

function checkRecord(path: string, record: Record<string, unknown>, line: number, ids: Record<RefKind, Set<string>>, factKeys: Set<string>, issues: IssueList): void {
  for (const issue of recordIssues(record, path, line)) issues.add(issue);
  const entry = schemaForPath(path);
  if (entry !== undefined && entry.shape === 'line') {
    const parsed = entry.schema.safeParse(record);
    if (!parsed.success) {
      const detail = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(line)'}: ${i.message}`).join('; ');
      issues.add({ code: 'schema.invalid', severity: 'error', file: path, line, message: `fails schemas/${entry.name}.schema.json: ${detail}` });
    }
  }
  const kind = fileKind(path);
  const id = typeof record.id === 'string' ? record.id : null;
  if (id !== null && RECORD_ORDER.includes(kind)) {
    const k = idKind(id);
    if (k !== null) {
      if (ids[k].has(id)) issues.add({ code: 'jsonl.duplicate_id', severity: 'error', file: path, line, message: `${id} appears twice` });
      ids[k].add(id);
    }
    ids.record.add(id);
  }
  if (kind === 'facts') {
    const key = `${String(record.subject_entity_id ?? record.subject)}\u0000${String(record.predicate)}\u0000${String(record.language)}`;
    if (factKeys.has(key)) issues.add({ code: 'export.superseded_fact', severity: 'error', file: path, line, message: `a second fact for (${String(record.subject)}, ${String(record.predicate)}); only the surviving fact may be emitted (export rule 2)` });
    factKeys.add(key);
  }
  for (const [field, target] of REFERENCE_FIELDS[kind] ?? []) {
    const value = record[field];
    for (const ref of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
      if (typeof ref === 'string' && !ids[target].has(ref)) {
        issues.add({ code: 'ref.dangling', severity: 'error', file: path, line, message: `${field} ${ref} does not resolve to a ${target === 'record' ? 'record' : target} of this node` });
      }
    }
  }
}
