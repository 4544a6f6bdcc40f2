import { findUuidLeak } from '../jsonl-writer.js';

/** One finding of the validator: a code a script can branch on and a message a person can act on. */
export interface ValidationIssue {
  code: string;
  severity: 'error' | 'warning';
  file?: string;
  line?: number;
  message: string;
}

/** Fields that hold internal graph state; export rules 4 and 5 say they never appear in a node. */
export const INTERNAL_FIELDS = [
  'hidden',
  'stale',
  'pinned',
  'status',
  'editorial',
  'editorialStatus',
  'editorial_status',
  'reviewedBy',
  'reviewed_by',
  'originalValue',
  'original_value',
] as const;

/** Which record ids a reference field of each file must resolve to. */
export type RefKind = 'entity' | 'fact' | 'source' | 'chunk' | 'record';

export const REFERENCE_FIELDS: Record<string, Array<[field: string, kind: RefKind]>> = {
  entities: [['source_id', 'source']],
  facts: [
    ['subject_entity_id', 'entity'],
    ['source_id', 'source'],
  ],
  relationships: [
    ['from_entity_id', 'entity'],
    ['to_entity_id', 'entity'],
    ['source_id', 'source'],
  ],
  chunks: [
    ['entity_ids', 'entity'],
    ['source_id', 'source'],
  ],
  qa: [
    ['fact_ids', 'fact'],
    ['entity_ids', 'entity'],
  ],
  citations: [
    ['record_id', 'record'],
    ['source_id', 'source'],
  ],
  'priority-feed': [['record_id', 'record']],
};

/** The kind of a node file: entities.en.jsonl is entities, priority-feed.jsonl is priority-feed. */
export function fileKind(path: string): string {
  return path.split('.')[0]!;
}

/** Problems of a record that are not schema shape: uuid leaks and internal fields. */
export function recordIssues(record: Record<string, unknown>, file: string, line: number): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const leak = findUuidLeak(record);
  if (leak !== null)
    issues.push({
      code: 'node.uuid_leak',
      severity: 'error',
      file,
      line,
      message: `a uuid stands where a stable id is required (${leak}); ids must be <prefix>_<hash>`,
    });
  for (const field of INTERNAL_FIELDS) {
    // A record the compiler serialized may hold a key whose value is undefined: its line has no such key.
    if (record[field] !== undefined)
      issues.push({
        code: 'export.internal_field',
        severity: 'error',
        file,
        line,
        message: `internal field "${field}" is serialized; export rules 4 and 5 forbid it`,
      });
  }
  return issues;
}

/** The kind a stable id names, by its prefix. */
export function idKind(id: string): RefKind | null {
  if (id.startsWith('entity_')) return 'entity';
  if (id.startsWith('fact_')) return 'fact';
  if (id.startsWith('src_')) return 'source';
  if (id.startsWith('chunk_')) return 'chunk';
  return null;
}

/** Issues kept per code; the others are only counted. */
export const ISSUES_KEPT_PER_CODE = 50;

/** Tracks issues with a cap so a broken million-line file cannot exhaust memory. */
export class IssueList {
  readonly errors: ValidationIssue[] = [];
  readonly warnings: ValidationIssue[] = [];
  truncated = false;
  private readonly perCode = new Map<string, number>();

  constructor(private readonly capPerCode = ISSUES_KEPT_PER_CODE) {}

  add(issue: ValidationIssue): void {
    const n = (this.perCode.get(issue.code) ?? 0) + 1;
    this.perCode.set(issue.code, n);
    if (n > this.capPerCode) {
      this.truncated = true;
      return;
    }
    (issue.severity === 'error' ? this.errors : this.warnings).push(issue);
  }

  /** Counts `n` more issues of `code` that were found after ISSUES_KEPT_PER_CODE of them (not kept anywhere). */
  countDropped(code: string, n: number): void {
    const total = (this.perCode.get(code) ?? 0) + n;
    this.perCode.set(code, total);
    if (total > this.capPerCode) this.truncated = true;
  }

  /** How many issues of each code were found, including those over the cap. */
  counts(): Record<string, number> {
    return Object.fromEntries([...this.perCode.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }
}

/** The issue of a file manifest.json lists that the node does not hold. */
export function missingFileIssue(path: string): ValidationIssue {
  return { code: 'file.missing', severity: 'error', file: path, message: 'listed in manifest.json but not found' };
}

/** Adds what an IssueList found to `to`, as if each issue had been added to `to` itself (the kept ones, then the count of the others). */
export function transferIssues(from: IssueList, to: IssueList): void {
  const kept = new Map<string, number>();
  for (const issue of [...from.errors, ...from.warnings]) {
    to.add(issue);
    kept.set(issue.code, (kept.get(issue.code) ?? 0) + 1);
  }
  for (const [code, n] of Object.entries(from.counts()))
    if (n > (kept.get(code) ?? 0)) to.countDropped(code, n - (kept.get(code) ?? 0));
}
