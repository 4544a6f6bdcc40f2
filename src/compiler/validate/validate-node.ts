import { capabilitiesOf, PLANS } from '../../control/plans/index.js';
import {
  isRecordFile,
  ManifestSchema,
  schemaForPath,
  type Manifest,
  type ManifestFile,
  VECTOR_FILE,
} from '../../platform/node-format/index.js';
import { contentTypeOf, isImmutable } from '../documents.js';
import { planCarriedFiles, NOTHING_CARRIED } from './carried-files.js';
import { IssueList, type ValidationIssue } from './checks.js';
import { openNodeSource, type NodeSource } from './node-source.js';
import { compareInReadOrder, emptyNodeIds, scanFile, type NodeIds, type ScannedFile } from './scan-file.js';
import { checkTextFile } from './text-files.js';

export type { ValidationIssue } from './checks.js';

/** The outcome of validateNode: ok is false when any error was found. */
export interface ValidationReport {
  ok: boolean;
  location: string;
  nodeVersion: string | null;
  nodeVersionLabel: string | null;
  domain: string | null;
  /** Files of the node, manifest.json included (the API's `files` lists them without it). */
  files: number;
  /** Lines of every JSONL file, derived feeds (changes.jsonl) included. */
  records: number;
  /**
   * Knowledge records (entities, facts, relationships, chunks, Q&A, sources) as the manifest
   * lists them: the same count as publish's and the API's recordCount.
   */
  recordCount: number;
  errors: ValidationIssue[];
  warnings: ValidationIssue[];
  /** Issue counts per code (including those left out of errors/warnings past 50 per code). */
  counts: Record<string, number>;
  truncated: boolean;
}

export interface ValidateOptions {
  /**
   * The manifest of a node that passed validateNode whole (a store's live version). Files it
   * lists with the same path, checksum, size and records are taken to be its validated bytes:
   * their records are not checked again (carried-files.ts says when they are not even read).
   * Only for a caller that publishes the store's copy of those files, never the local one.
   */
  validatedNode?: Manifest;
  /**
   * The node was just written by compileNode in this process (never a folder given by someone
   * else): each line of its .jsonl files passed the same line schema (JsonlWriter) right before
   * it was serialized, so the scan does not run that schema again. Every other check still runs.
   * A publish checks its own first version as it is written (written-node.ts, with the same
   * rule) and a compile against a live version from its folder with this option. Default false.
   */
  recordsPassedSchemas?: boolean;
  /**
   * The node is to become a new version (publish checks it so): a form only an older nodectl
   * wrote (schema.jsonld with relative @ids) is the error schema.relative_ids. Default false: a
   * node that may be an earlier published version (nodectl validate) gets it as a warning.
   */
  forNewVersion?: boolean;
}

const REQUIRED_FILES = [
  'ai.json',
  'llms.txt',
  'llms-full.txt',
  'sources.jsonl',
  'schema.jsonld',
  'sitemap-ai.xml',
  'priority-feed.jsonl',
  'citations.jsonl',
  'changes.jsonl',
  'versions.json',
  'mcp.json',
];

/**
 * Checks any node as a consumer would, from a directory or a URL: the manifest and its file
 * checksums and sizes, the encoding and JSONL rules, every record against its schema, cross-file
 * references, uuid leaks (node.uuid_leak), internal fields, one fact per (subject, predicate,
 * language), plan-gated files, and the shape of llms.txt, llms-full.txt and sitemap-ai.xml.
 * Never throws for a bad node: everything found is in the report. A publisher must not publish
 * a node whose report is not ok.
 */
export async function validateNode(dirOrUrl: string, options: ValidateOptions = {}): Promise<ValidationReport> {
  const source = openNodeSource(dirOrUrl);
  const files: NodeFiles = {
    manifestText: () => readText(source, 'manifest.json'),
    list: () => source.list(),
    scan: (entry, found, issues, trusted) =>
      scanFile(source, entry, found, issues, trusted, options.recordsPassedSchemas === true),
  };
  return checkNode(source.location, files, options);
}

/**
 * A node's files as the checks of checkNode read them: from a directory or URL (validateNode),
 * or as the compiler wrote them (written-node.ts).
 */
export interface NodeFiles {
  /** manifest.json as text, or null when there is none. */
  manifestText(): Promise<string | null>;
  /** Every file name present, when known; null otherwise. */
  list(): string[] | null;
  /**
   * Every check of scanFile on one manifest file, its records against
   * `found` (the ids of the files before it); null when it is missing.
   */
  scan(entry: ManifestFile, found: NodeIds, issues: IssueList, trusted: boolean): Promise<ScannedFile | null>;
  /**
   * The ids of the files the source has already checked against the node, when those files are
   * the first of `paths` (the manifest's files in read order), in that order: their scan() then
   * only reports what that check found. Null when they are not, and every file is checked from
   * the start.
   */
  checkedAhead?(paths: readonly string[]): NodeIds | null;
}

/**
 * The checks of validateNode over any NodeFiles: the manifest,
 * then each file in RECORD_ORDER, then the whole-file documents.
 */
export async function checkNode(
  location: string,
  source: NodeFiles,
  options: Pick<ValidateOptions, 'validatedNode' | 'forNewVersion'> = {},
): Promise<ValidationReport> {
  const issues = new IssueList();
  const report = (manifest: Manifest | null, records: number): ValidationReport => ({
    ok: issues.errors.length === 0,
    location,
    nodeVersion: manifest?.node_version ?? null,
    nodeVersionLabel: manifest?.node_version_label ?? null,
    domain: manifest?.domain ?? null,
    files: manifest === null ? 0 : manifest.files.length + 1,
    records,
    recordCount:
      manifest === null ? 0 : manifest.files.reduce((n, f) => n + (isRecordFile(f.path) ? (f.records ?? 0) : 0), 0),
    errors: issues.errors,
    warnings: issues.warnings,
    counts: issues.counts(),
    truncated: issues.truncated,
  });

  const manifestText = await source.manifestText();
  if (manifestText === null) {
    issues.add({
      code: 'manifest.missing',
      severity: 'error',
      file: 'manifest.json',
      message: `no manifest.json at ${location}: a node's entry point is always manifest.json`,
    });
    return report(null, 0);
  }
  let manifest: Manifest;
  try {
    const parsed = ManifestSchema.safeParse(JSON.parse(manifestText));
    if (!parsed.success) {
      for (const i of parsed.error.issues.slice(0, 20))
        issues.add({
          code: 'schema.invalid',
          severity: 'error',
          file: 'manifest.json',
          message: `${i.path.join('.') || '(root)'}: ${i.message}`,
        });
      return report(null, 0);
    }
    manifest = parsed.data;
  } catch (error) {
    issues.add({
      code: 'json.invalid',
      severity: 'error',
      file: 'manifest.json',
      message: `not JSON: ${(error as Error).message}`,
    });
    return report(null, 0);
  }

  checkManifestShape(manifest, source.list(), issues);
  const carried =
    options.validatedNode === undefined ? NOTHING_CARRIED : planCarriedFiles(manifest, options.validatedNode);
  const ordered = [...manifest.files].sort((a, b) => compareInReadOrder(a.path, b.path));
  const found =
    (carried === NOTHING_CARRIED ? source.checkedAhead?.(ordered.map((entry) => entry.path)) : null) ?? emptyNodeIds();
  let records = 0;
  const texts = new Map<string, string>();
  for (const entry of ordered) {
    if (carried.unread.has(entry.path)) {
      records += entry.records ?? 0;
      continue;
    }
    const scanned = await source.scan(entry, found, issues, carried.trusted.has(entry.path));
    if (scanned === null) continue;
    records += scanned.records;
    if (scanned.text !== null) texts.set(entry.path, scanned.text);
  }

  for (const [path, text] of [...texts.entries()].sort(([a], [b]) => (a < b ? -1 : 1)))
    checkTextFile(path, text, manifest, found.ids, issues, { forNewVersion: options.forNewVersion === true });
  return report(manifest, records);
}

async function readText(source: NodeSource, path: string): Promise<string | null> {
  const stream = await source.open(path);
  if (stream === null) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

function checkManifestShape(manifest: Manifest, present: string[] | null, issues: IssueList): void {
  const paths = new Set(manifest.files.map((f) => f.path));
  if (paths.size !== manifest.files.length)
    issues.add({
      code: 'manifest.duplicate_path',
      severity: 'error',
      file: 'manifest.json',
      message: 'a path is listed twice in files[]',
    });
  if (paths.has('manifest.json'))
    issues.add({
      code: 'manifest.self_listed',
      severity: 'error',
      file: 'manifest.json',
      message: 'files[] must not list manifest.json itself',
    });
  const required = [
    ...REQUIRED_FILES,
    ...manifest.languages.flatMap((l) =>
      ['entities', 'facts', 'relationships', 'chunks', 'qa'].map((k) => `${k}.${l}.jsonl`),
    ),
  ];
  for (const path of required)
    if (!paths.has(path))
      issues.add({
        code: 'file.required_missing',
        severity: 'error',
        file: path,
        message: 'required node file is not in manifest.json',
      });
  const caps = new Set(manifest.capabilities);
  const sorted = [...manifest.capabilities].sort();
  if (sorted.join() !== manifest.capabilities.join())
    issues.add({
      code: 'manifest.capabilities_unsorted',
      severity: 'error',
      file: 'manifest.json',
      message: 'capabilities must be sorted',
    });
  if (!PLANS.some((plan) => capabilitiesOf(plan).join() === sorted.join()))
    issues.add({
      code: 'manifest.capabilities_unknown',
      severity: 'warning',
      file: 'manifest.json',
      message: `capabilities ${sorted.join(', ')} match no plan`,
    });
  for (const gated of ['trust.json', 'openapi.json']) {
    if (paths.has(gated) && !caps.has('cap.advanced'))
      issues.add({
        code: 'file.not_entitled',
        severity: 'error',
        file: gated,
        message: 'emitted without cap.advanced',
      });
  }
  if (paths.has('embeddings-manifest.json') && !(caps.has('cap.advanced') && caps.has('cap.embeddings')))
    issues.add({
      code: 'file.not_entitled',
      severity: 'error',
      file: 'embeddings-manifest.json',
      message: 'emitted without cap.advanced and cap.embeddings',
    });
  if (caps.has('cap.advanced') && !paths.has('trust.json'))
    issues.add({
      code: 'file.required_missing',
      severity: 'error',
      file: 'trust.json',
      message: 'cap.advanced is present but trust.json is not',
    });
  if (!manifest.languages.includes(manifest.default_language))
    issues.add({
      code: 'manifest.default_language',
      severity: 'warning',
      file: 'manifest.json',
      message: `default_language ${manifest.default_language} is not among languages`,
    });
  for (const f of manifest.files) {
    if (f.content_type !== contentTypeOf(f.path))
      issues.add({
        code: 'manifest.content_type',
        severity: 'warning',
        file: f.path,
        message: `content_type ${f.content_type}, expected ${contentTypeOf(f.path)}`,
      });
    if (f.immutable !== isImmutable(f.path))
      issues.add({
        code: 'manifest.immutable',
        severity: 'error',
        file: f.path,
        message: `immutable is ${f.immutable}, expected ${isImmutable(f.path)}`,
      });
    if (f.path.endsWith('.jsonl') && f.records === undefined)
      issues.add({
        code: 'manifest.records_missing',
        severity: 'warning',
        file: f.path,
        message: 'a .jsonl entry should carry records',
      });
    if (
      schemaForPath(f.path) === undefined &&
      !['llms.txt', 'llms-full.txt', 'sitemap-ai.xml', VECTOR_FILE].includes(f.path)
    )
      issues.add({
        code: 'file.unknown',
        severity: 'warning',
        file: f.path,
        message: 'not a node file this validator knows',
      });
  }
  if (present !== null) {
    for (const name of present)
      if (name !== 'manifest.json' && !paths.has(name))
        issues.add({
          code: 'file.unlisted',
          severity: 'warning',
          file: name,
          message: 'present in the directory but not in manifest.json',
        });
  }
}
