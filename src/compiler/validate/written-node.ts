import { closeSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { IdColumn, IdListColumn, NumberColumn } from '../id-set.js';
import { digestOf, type NodeSink, type SinkFile, type WrittenFile } from '../sink.js';
import {
  fileKind,
  ISSUES_KEPT_PER_CODE,
  IssueList,
  missingFileIssue,
  transferIssues,
  type ValidationIssue,
} from './checks.js';
import {
  checkAgainstNode,
  checkMeasured,
  compareInReadOrder,
  definesIds,
  emptyNodeIds,
  FileScan,
  fileRank,
  nodeFieldsOf,
  rulesOf,
  scanFile,
  type FileRules,
  type MeasuredFile,
  type NodeIds,
  type ScanEvents,
} from './scan-file.js';
import { openNodeSource } from './node-source.js';
import { checkNode, type NodeFiles, type ValidationReport } from './validate-node.js';

export interface WrittenNodeCheckOptions {
  /** As validateNode's option (the compiler ran each line schema just before it wrote the line). */
  recordsPassedSchemas?: boolean;
  /**
   * The folder the files are written into as they are, if any (default: the sink's given to
   * sink(), NodeSink.folder): the facts and last-rank files are read back from it rather than
   * their fields held (readsBack). Without one, every file's fields are held.
   */
  folder?: string;
  /** Called now and then while a file is read back from the folder (a long, synchronous read). */
  onReadBack?: () => void;
  /**
   * The website the node is of, when known: its facts are then told apart by their derived ids
   * rather than by keys held (DerivedFacts). The report is the same.
   */
  websiteId?: string;
}

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
 *
 * Most of that is done ahead, while the compile still writes: files are checked against the node
 * in checkNode's order, each once it is complete and the compiler has since opened a file of a
 * later rank (it writes a rank's files together, facts before entities aside, which this waits
 * out). The order is a guess until the manifest is read: report() keeps what was checked ahead
 * only when those files are the first of the manifest's in read order, and checks every file
 * again otherwise (checkedAhead), so the report never depends on the guess.
 *
 * Files of the last rank (citations.jsonl, priority-feed.jsonl, the documents) define no ids, so
 * once every file that defines them has been checked ahead, each of them is checked as soon as it
 * is complete, into a list of its own (checkedEarly): citations.jsonl, a line for every record,
 * is checked while the compiler writes the documents instead of after the manifest. report() takes
 * such a list in the file's turn only when the files checked ahead then are all the manifest's
 * files that define ids, which makes the ids it was checked against the ones the report has.
 *
 * The fields a record is checked against the node with are kept until then (WrittenNodeFile),
 * except those of the files that would wait longest: the facts (written before the entities they
 * are checked after) and the last rank's (citations.jsonl, written throughout the compile). Those
 * are read back from the folder when checked (readsBack), as the written bytes are in it by then:
 * on a large node their fields were most of what the check held.
 */
export class WrittenNodeCheck {
  private readonly files = new Map<string, WrittenNodeFile>();
  private manifest: Uint8Array[] | null = null;
  /**
   * Files checked against the node ahead of the report, in read order: the ids they define and what each check found.
   */
  private readonly ahead: { found: NodeIds; paths: string[]; issues: Map<string, IssueList>; off: boolean };
  /**
   * Last-rank files checked against the node once complete: what each
   * check found, and how many files had been checked ahead then.
   */
  private readonly checkedEarly = new Map<string, { issues: IssueList; ahead: number }>();
  /** How many files the last report() took as checked ahead (0: every file was checked in the report). */
  takenAhead = 0;
  /** How many last-rank files the last report() took as checked early (checkEarly). */
  takenEarly = 0;

  /**
   * `location`: the folder the files end up in (for the report). `recordsPassedSchemas`: as
   * validateNode's option (the compiler ran each line schema just before it wrote the line).
   */
  constructor(
    readonly location: string,
    private readonly options: WrittenNodeCheckOptions = {},
  ) {
    this.folder = options.folder;
    this.ahead = { found: emptyNodeIds(options.websiteId), paths: [], issues: new Map(), off: false };
  }

  /** Where files can be read back from (WrittenNodeCheckOptions.folder). */
  private folder: string | undefined;

  /** A sink that writes through `inner` and shows each file's bytes to this check. */
  sink(inner: NodeSink): NodeSink {
    this.folder ??= inner.folder;
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
          ...digestOf(target),
        };
      },
    };
  }

  /** validateNode's report on the files written so far (call once the compile wrote manifest.json). */
  report(): Promise<ValidationReport> {
    this.takenAhead = 0;
    this.takenEarly = 0;
    let scans = 0;
    /** Whether checkEarly's lists stand: every manifest file that defines ids was checked ahead, and taken. */
    let earlyStands = false;
    const files: NodeFiles = {
      manifestText: async () => (this.manifest === null ? null : Buffer.concat(this.manifest).toString('utf8')),
      list: () => [...this.files.keys(), ...(this.manifest === null ? [] : ['manifest.json'])].sort(),
      scan: async (entry, found, issues, trusted) => {
        const file = this.files.get(entry.path);
        if (file?.measured === undefined) {
          issues.add(missingFileIssue(entry.path));
          return null;
        }
        if (trusted) throw new Error('a written node has no trusted files');
        // checkNode scans the manifest's files in read order: the first takenAhead are the ones checked ahead.
        const early = this.checkedEarly.get(entry.path);
        if (scans++ < this.takenAhead) transferIssues(this.ahead.issues.get(entry.path)!, issues);
        else if (earlyStands && early?.ahead === this.takenAhead) {
          transferIssues(early.issues, issues);
          this.takenEarly++;
        } else if (file.released)
          // Its records' fields went once it was checked ahead: the folder holds the same bytes.
          return scanFile(
            openNodeSource(this.location),
            entry,
            found,
            issues,
            false,
            this.options.recordsPassedSchemas === true,
          );
        else file.replay(found, issues);
        checkMeasured(entry, file.measured, issues);
        return { records: file.measured.records, text: file.measured.text };
      },
      checkedAhead: (paths) => {
        const ahead = this.ahead;
        if (ahead.off || ahead.paths.some((path, i) => paths[i] !== path)) return null;
        this.takenAhead = ahead.paths.length;
        earlyStands = paths.filter(definesIds).length === this.takenAhead;
        ahead.off = true; // checkNode adds the other files' ids to these: a second report checks every file
        return ahead.found;
      },
    };
    // The bytes come from this nodectl's compile: a new version, held to the current format.
    return checkNode(this.location, files, { forNewVersion: true });
  }

  private open(path: string): SinkFile {
    this.checkAhead(path);
    if (path === 'manifest.json') {
      const chunks: Uint8Array[] = (this.manifest = []);
      return { write: (chunk) => void chunks.push(Buffer.from(chunk)), close: () => {} };
    }
    const rules = rulesOf(path, false, this.options.recordsPassedSchemas === true);
    const file = new WrittenNodeFile(
      rules,
      this.folder !== undefined && readsBack(path) ? this.folder : null,
      this.options.onReadBack,
    );
    this.files.set(path, file);
    return file;
  }

  /**
   * The compiler opens `opened`: every complete file of an earlier rank is ready, and the ready
   * files are checked against the node in read order, up to the first that is not. A file that
   * sorts before one already checked ends the checks ahead (report() then checks every file).
   */
  private checkAhead(opened: string): void {
    const ahead = this.ahead;
    if (ahead.off) return;
    const rank = fileRank(opened);
    for (const file of this.files.values())
      if (file.measured !== undefined && fileRank(file.rules.path) < rank) file.ready = true;
    const known = [...this.files.keys(), ...(opened === 'manifest.json' ? [] : [opened])].sort(compareInReadOrder);
    if (ahead.paths.some((path, i) => known[i] !== path)) {
      ahead.off = true;
      return;
    }
    for (const path of known.slice(ahead.paths.length)) {
      const file = this.files.get(path);
      if (file?.ready !== true) break;
      const issues = new IssueList();
      if (!this.replayAhead(file, issues)) return;
      ahead.issues.set(path, issues);
      ahead.paths.push(path);
    }
    this.checkEarly();
  }

  /**
   * Once every file known to define ids was checked ahead, checks each complete last-rank file
   * against those ids, once (report() says whether the result stands).
   */
  private checkEarly(): void {
    const ahead = this.ahead;
    if (ahead.off) return;
    if ([...this.files.keys()].some((path) => definesIds(path) && !ahead.issues.has(path))) return;
    for (const [path, file] of this.files) {
      if (definesIds(path) || file.measured === undefined || this.checkedEarly.has(path)) continue;
      const issues = new IssueList();
      if (!this.replayAhead(file, issues)) return;
      this.checkedEarly.set(path, { issues, ahead: ahead.paths.length });
    }
  }

  /**
   * Checks `file` against the ids found ahead and lets its fields go. False when it could not be
   * read back from the folder: the checks ahead end (ahead.found may hold part of its ids), and
   * report() checks every file, reading those it holds no fields of from the folder.
   */
  private replayAhead(file: WrittenNodeFile, issues: IssueList): boolean {
    try {
      file.replay(this.ahead.found, issues);
    } catch (error) {
      if (!(error instanceof ReadBackError)) throw error;
      this.ahead.off = true;
      return false;
    }
    file.release();
    return true;
  }
}

/**
 * Whether the check reads a file back from the folder for its node checks rather than hold its
 * records' fields: facts (written before the entities, so held through both passes) and the
 * files after every record file (citations.jsonl, a line a record, written all along).
 */
function readsBack(path: string): boolean {
  return fileKind(path) === 'facts' || !definesIds(path);
}

/** A file read back from the folder is missing or not the bytes the check saw written. */
class ReadBackError extends Error {}

/**
 * One written file: scanned as its chunks arrive, its findings kept in order for the node-level
 * pass. What waits for the node of each record is the fields checkAgainstNode reads, kept column
 * by column (a node's 300,000 records would otherwise be 600,000 small objects held until the
 * report, which the garbage collector marks again and again), ids compactly (IdColumn); the
 * file's own issues are kept with the number of records before them, so a replay meets both in
 * the order a read of the file does. Once checked against the node the fields are let go
 * (release): a report that has to check the file again reads it from the folder. A file given a
 * `folder` holds no fields at all: replay() reads it back from there.
 */
class WrittenNodeFile implements SinkFile, ScanEvents {
  private readonly scan: FileScan;
  private readonly fields: readonly string[];
  /** Records seen (of a file with fields): an issue's place among them. */
  private count = 0;
  /** Each record's line, and per field of `fields` each record's value (undefined where it has none). */
  private lines = new NumberColumn();
  private columns: Array<IdColumn | IdListColumn | unknown[]>;
  private readonly issues: Array<{ recordsBefore: number; issue: ValidationIssue }> = [];
  private readonly perCode = new Map<string, number>();
  measured: MeasuredFile | undefined;
  /** Complete, and a file of a later rank was opened since: it can be checked against the node ahead of the report. */
  ready = false;
  /** The records' fields are not here (let go by release(), or never kept): they are read from the folder. */
  released: boolean;

  constructor(
    readonly rules: FileRules,
    private readonly folder: string | null,
    private readonly onReadBack?: () => void,
  ) {
    this.scan = new FileScan(rules, this, false);
    this.fields = nodeFieldsOf(rules);
    this.released = folder !== null && this.fields.length > 0;
    this.columns = this.released ? [] : this.fields.map(columnOf);
  }

  write(chunk: Uint8Array): void {
    this.scan.push(chunk);
  }

  close(written: WrittenFile): void {
    this.measured = { ...this.scan.end(), checksum: written.checksum };
    if (this.measured.bytes !== written.bytes)
      throw new Error(`${this.rules.path}: the sink saw ${this.measured.bytes} bytes, TrackedFile ${written.bytes}`);
  }

  issue(issue: ValidationIssue): void {
    // Only the first ISSUES_KEPT_PER_CODE of a code can be kept by the node's IssueList: the others are counted.
    const n = (this.perCode.get(issue.code) ?? 0) + 1;
    this.perCode.set(issue.code, n);
    if (n <= ISSUES_KEPT_PER_CODE) this.issues.push({ recordsBefore: this.count, issue });
  }

  record(record: Record<string, unknown>, line: number): void {
    if (this.fields.length === 0) return;
    this.count++;
    if (this.released) return;
    this.lines.push(line);
    for (let i = 0; i < this.fields.length; i++) this.columns[i]!.push(record[this.fields[i]!]);
  }

  /**
   * This file's findings in the order a read of it meets them, its records checked against
   * `found`: from the fields held, or else from the folder (ReadBackError when the folder does
   * not hold the bytes that were written: nothing the report takes was added to `issues` then).
   */
  replay(found: NodeIds, issues: IssueList): void {
    let next = 0;
    const issuesBefore = (k: number) => {
      for (; next < this.issues.length && this.issues[next]!.recordsBefore === k; next++)
        issues.add(this.issues[next]!.issue);
    };
    if (this.released)
      this.readBack((record, line, k) => {
        issuesBefore(k);
        checkAgainstNode(this.rules, record, line, found, issues);
      });
    else {
      // One object holds each record's fields in turn: checkAgainstNode only reads them.
      const record: Record<string, unknown> = {};
      for (let k = 0; k < this.count; k++) {
        issuesBefore(k);
        for (let i = 0; i < this.fields.length; i++) {
          const column = this.columns[i]!;
          record[this.fields[i]!] = Array.isArray(column) ? column[k] : column.get(k);
        }
        checkAgainstNode(this.rules, record, this.lines.get(k), found, issues);
      }
    }
    for (; next < this.issues.length; next++) issues.add(this.issues[next]!.issue);
    for (const [code, n] of this.perCode)
      if (n > ISSUES_KEPT_PER_CODE) issues.countDropped(code, n - ISSUES_KEPT_PER_CODE);
  }

  /** Lets the records' fields go once the file was checked against the node: they grow with the node. */
  release(): void {
    if (this.measured === undefined) return;
    this.released = true;
    this.lines = new NumberColumn();
    this.columns = [];
  }

  /**
   * Reads the complete file back from the folder (synchronously: the check runs inside the
   * compile's sink calls) and hands each record to `each`, with its line and its place among the
   * records; the file's own findings were kept as it was written. Throws ReadBackError when the
   * file is missing or not the bytes measured as written.
   */
  private readBack(each: (record: Record<string, unknown>, line: number, k: number) => void): void {
    const { path } = this.rules;
    if (this.measured === undefined || this.folder === null) throw new Error(`${path}: read back before it was closed`);
    let k = 0;
    // Trusted: the record's own checks ran as it was written; the scan only parses and measures.
    const scan = new FileScan(
      rulesOf(path, true, this.rules.schemaPassed),
      { issue: () => {}, record: (record, line) => each(record, line, k++) },
      true,
    );
    let fd: number;
    try {
      fd = openSync(join(this.folder, path), 'r');
    } catch (error) {
      throw new ReadBackError(`${path}: cannot be read back (${(error as Error).message})`);
    }
    try {
      const chunk = Buffer.allocUnsafe(READ_BACK_CHUNK);
      for (;;) {
        const n = readSync(fd, chunk, 0, chunk.length, null);
        if (n === 0) break;
        // FileScan keeps no chunk it is given (it decodes each into a string): the buffer is reused.
        scan.push(chunk.subarray(0, n));
        this.onReadBack?.();
      }
    } finally {
      closeSync(fd);
    }
    const again = scan.end();
    if (again.checksum !== this.measured.checksum || k !== this.count)
      throw new ReadBackError(`${path}: the folder does not hold the bytes written`);
  }
}

/** Bytes read at a time when a file is read back from the folder. */
const READ_BACK_CHUNK = 1 << 20;

/** Where a field's values are kept: one record id (id, *_id) in an IdColumn, a list of them (*_ids) in an IdListColumn. */
function columnOf(field: string): IdColumn | IdListColumn | unknown[] {
  if (field === 'id' || field.endsWith('_id')) return new IdColumn();
  return field.endsWith('_ids') ? new IdListColumn() : [];
}
