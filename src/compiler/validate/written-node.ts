import type { NodeSink, SinkFile, WrittenFile } from '../sink.js';
import { ISSUES_KEPT_PER_CODE, type IssueList, type ValidationIssue } from './checks.js';
import { checkAgainstNode, checkMeasured, FileScan, nodeFieldsOf, rulesOf, type FileRules, type MeasuredFile, type NodeIds, type ScanEvents } from './scan-file.js';
import { checkNode, type NodeFiles, type ValidationReport } from './validate-node.js';

/**
 * validateNode's checks of a node, run on the bytes its compiler writes instead of on the files
 * read back: `sink(inner)` hands every chunk to the FileScan of its file (the scanner the folder
 * validator uses) on its way to `inner`, and `report()` then runs validateNode's node-level
 * checks (checkNode) over what was seen. The checksum and size of each file are the ones
 * TrackedFile measured over the same chunks (SinkFile.close), not a second hash.
 *
 * Files are written in another order than the validator reads them (facts before entities,
 * citations throughout), so what depends on the other files (ids, one fact per subject and
 * predicate, references) is kept per record and checked in checkNode's order, interleaved with
 * the file's own findings as a read of the file would have met them: the report equals
 * validateNode's on the written folder.
 */
export class WrittenNodeCheck {
  private readonly files = new Map<string, WrittenNodeFile>();
  private manifest: Uint8Array[] | null = null;

  /**
   * `location`: the folder the files end up in (for the report). `recordsPassedSchemas`: as
   * validateNode's option (the compiler ran each line schema just before it wrote the line).
   */
  constructor(readonly location: string, private readonly options: { recordsPassedSchemas?: boolean } = {}) {}

  /** A sink that writes through `inner` and shows each file's bytes to this check. */
  sink(inner: NodeSink): NodeSink {
    return {
      open: (path) => {
        const target = inner.open(path);
        const seen = this.open(path);
        return {
          write: (chunk) => {
            seen.write(chunk);
            target.write(chunk);
          },
          close: (written) => {
            target.close(written);
            seen.close(written);
          },
        };
      },
    };
  }

  /** validateNode's report on the files written so far (call once the compile wrote manifest.json). */
  report(): Promise<ValidationReport> {
    const files: NodeFiles = {
      manifestText: async () => (this.manifest === null ? null : Buffer.concat(this.manifest).toString('utf8')),
      list: () => [...this.files.keys(), ...(this.manifest === null ? [] : ['manifest.json'])].sort(),
      scan: async (entry, found, issues, trusted) => {
        const file = this.files.get(entry.path);
        if (file?.measured === undefined) {
          issues.add({ code: 'file.missing', severity: 'error', file: entry.path, message: 'listed in manifest.json but not found' });
          return null;
        }
        if (trusted) throw new Error('a written node has no trusted files');
        file.replay(found, issues);
        checkMeasured(entry, file.measured, issues);
        return { records: file.measured.records, text: file.measured.text };
      },
    };
    return checkNode(this.location, files);
  }

  private open(path: string): SinkFile {
    if (path === 'manifest.json') {
      const chunks: Uint8Array[] = (this.manifest = []);
      return { write: (chunk) => void chunks.push(Buffer.from(chunk)), close: () => {} };
    }
    const file = new WrittenNodeFile(rulesOf(path, false, this.options.recordsPassedSchemas === true));
    this.files.set(path, file);
    return file;
  }
}

/** A record's findings that wait for the node: the record reduced to the fields checkAgainstNode reads. */
interface PendingRecord {
  line: number;
  fields: Record<string, unknown>;
}

/** One written file: scanned as its chunks arrive, its findings kept in order for the node-level pass. */
class WrittenNodeFile implements SinkFile, ScanEvents {
  private readonly scan: FileScan;
  private readonly fields: readonly string[];
  private readonly findings: Array<ValidationIssue | PendingRecord> = [];
  private readonly perCode = new Map<string, number>();
  measured: MeasuredFile | undefined;

  constructor(private readonly rules: FileRules) {
    this.scan = new FileScan(rules, this, false);
    this.fields = nodeFieldsOf(rules);
  }

  write(chunk: Uint8Array): void {
    this.scan.push(chunk);
  }

  close(written: WrittenFile): void {
    this.measured = { ...this.scan.end(), checksum: written.checksum };
    if (this.measured.bytes !== written.bytes) throw new Error(`${this.rules.path}: the sink saw ${this.measured.bytes} bytes, TrackedFile ${written.bytes}`);
  }

  issue(issue: ValidationIssue): void {
    // Only the first ISSUES_KEPT_PER_CODE of a code can be kept by the node's IssueList: the others are counted.
    const n = (this.perCode.get(issue.code) ?? 0) + 1;
    this.perCode.set(issue.code, n);
    if (n <= ISSUES_KEPT_PER_CODE) this.findings.push(issue);
  }

  record(record: Record<string, unknown>, line: number): void {
    if (this.fields.length === 0) return;
    const fields: Record<string, unknown> = {};
    for (const field of this.fields) if (record[field] !== undefined) fields[field] = record[field];
    this.findings.push({ line, fields });
  }

  /** This file's findings in the order a read of it meets them, its records checked against `found`. */
  replay(found: NodeIds, issues: IssueList): void {
    for (const finding of this.findings) {
      if ('code' in finding) issues.add(finding);
      else checkAgainstNode(this.rules, finding.fields, finding.line, found, issues);
    }
    for (const [code, n] of this.perCode) if (n > ISSUES_KEPT_PER_CODE) issues.countDropped(code, n - ISSUES_KEPT_PER_CODE);
  }
}
