import { IdColumn, IdSet } from '../id-set.js';
import { digestOf, type CopiedKey, type LinePrevious, type NodeSink, type WrittenFile } from '../sink.js';
import {
  idKind,
  IssueList,
  missingFileIssue,
  recordIssues,
  transferIssues,
  type RefKind,
  type ValidationIssue,
} from './checks.js';
import {
  checkAgainstNode,
  checkCopiedFact,
  checkMeasured,
  compareInReadOrder,
  definesIds,
  emptyNodeIds,
  FileScan,
  rulesOf,
  type FileRules,
  type MeasuredFile,
} from './scan-file.js';
import { isRecordFile, ManifestSchema } from '../../platform/node-format/index.js';
import { checkNode, type NodeFiles, type ValidationReport } from './validate-node.js';

/**
 * validateNode's checks of a publish's own compile against the live version, from the records the
 * compiler wrote instead of the folder read back and parsed again (docs/publishing.md "Gates").
 * Each JSONL line comes with the record it is JSON.stringify of (SinkFile.line) and what it was
 * in the live version, which passed validateNode (LinePrevious). A line that is the live
 * version's bytes keeps its own checks (uuid leaks, internal fields) from there; every other line
 * gets them on its record (a parse of the line gives back the record's keys and values, less keys
 * whose value is undefined, which the checks pass over). Ids and the one fact per subject and
 * predicate are checked for every line as it is written, against the files written before;
 * references too, but for the live version's own lines, whose references were found there and
 * are found now when every record of the live version is still in its file (keptEveryLiveRecord,
 * from the live manifest's record counts). The documents are scanned as written.
 *
 * The compiler writes facts before entities and citations throughout, where a read of the folder
 * meets entities first and citations after every file that defines ids: a fact's subject and a
 * citation's references that are not found when written are kept (once each, ids compactly) and
 * looked up once those files are done. report() then runs checkNode with every file as checked
 * ahead. Any error, a file checked before a file that defines ids it refers to was done, a live
 * record gone while references were left out, or lines not all told to line() (a sink wrapped
 * around this one, such as a test's that alters bytes) leave report() undefined: the folder is
 * then validated as it is on disk, which gives the canonical report. As WrittenNodeCheck, the
 * checksum and size of each file are the ones TrackedFile measured over the chunks this sink was
 * given.
 */
export class KnownLinesCheck {
  private files = new Map<string, KnownFile>();
  private manifest: Uint8Array[] | null = null;
  private found = emptyNodeIds();
  /** Id-defining files whose every line was checked, in that order. */
  private done: string[] = [];
  private failed = false;

  /**
   * `live`: the files of the validated live version the compile is read against (path and
   * records, PreviousNode.files). Without it, every line's references are looked up.
   */
  constructor(
    readonly location: string,
    private readonly live?: ReadonlyArray<{ path: string; records?: number }>,
  ) {}

  /** A sink that writes through `inner` and shows each file to this check; a new one starts the check again (a compile that starts again). */
  sink(inner: NodeSink): NodeSink {
    this.files = new Map();
    this.manifest = null;
    this.found = emptyNodeIds();
    this.done = [];
    this.failed = false;
    return {
      open: (path) => {
        const target = inner.open(path);
        if (path === 'manifest.json') {
          const chunks: Uint8Array[] = (this.manifest = []);
          return {
            write: (chunk) => {
              chunks.push(Buffer.from(chunk));
              target.write(chunk);
            },
            close: (written) => target.close(written),
            ...digestOf(target),
          };
        }
        if (this.files.has(path)) this.failed = true;
        const file = new KnownFile(rulesOf(path, false, true), this.found, [...this.done], this.live !== undefined);
        this.files.set(path, file);
        return {
          write: (chunk) => {
            file.write(chunk);
            target.write(chunk);
          },
          close: (written) => {
            target.close(written);
            if (!file.close(written)) this.failed = true;
            if (file.rules.definesIds) this.done.push(path);
          },
          line: (line, record, previous, id, key) => {
            file.line(line, record, previous, id, key);
            target.line?.(line, record, previous, id, key);
          },
          ...digestOf(target),
        };
      },
    };
  }

  /**
   * validateNode's report on the files written (call once the compile wrote manifest.json), or
   * undefined: validate the folder instead.
   */
  async report(): Promise<ValidationReport | undefined> {
    if (this.failed || this.manifest === null) return undefined;
    const manifestText = Buffer.concat(this.manifest).toString('utf8');
    const paths = manifestPaths(manifestText);
    // A manifest checkNode refuses before it reads any file: its report needs no file's checks.
    if (paths !== null) {
      const defining = paths.filter(definesIds).sort(compareInReadOrder);
      for (const path of paths) {
        const file = this.files.get(path);
        if (file === undefined) continue;
        // Only references look ids up (a duplicate is found whichever of the two comes first).
        const before =
          file.rules.references.length === 0 ? [] : defining.filter((d) => compareInReadOrder(d, path) < 0);
        if (!file.checkedAfter(before)) return undefined;
      }
      // A line that is the live version's bytes had its references found there; they are found
      // now too when every record of the live version is still in its file.
      if ([...this.files.values()].some((file) => file.skipped > 0) && !this.keptEveryLiveRecord()) return undefined;
      for (const file of this.files.values()) file.checkDeferred();
      if ([...this.files.values()].some((file) => file.issues.errors.length > 0)) return undefined;
    }
    const files: NodeFiles = {
      manifestText: async () => manifestText,
      list: () => [...this.files.keys(), 'manifest.json'].sort(),
      scan: async (entry, _found, issues) => {
        const file = this.files.get(entry.path);
        if (file?.measured === undefined) {
          issues.add(missingFileIssue(entry.path));
          return null;
        }
        transferIssues(file.issues, issues);
        checkMeasured(entry, file.measured, issues);
        return { records: file.measured.records, text: file.measured.text };
      },
      checkedAhead: () => this.found,
    };
    // The bytes come from this nodectl's compile: a new version, held to the current format.
    return checkNode(this.location, files, { forNewVersion: true });
  }

  /** Whether each record file of the live version was written with a line for each of its records. */
  private keptEveryLiveRecord(): boolean {
    if (this.live === undefined) return false;
    return this.live.every(
      (f) => !isRecordFile(f.path) || (f.records !== undefined && this.files.get(f.path)?.existed === f.records),
    );
  }
}

/** The paths manifest.json lists, or null when checkNode refuses it before reading a file. */
function manifestPaths(text: string): string[] | null {
  try {
    const parsed = ManifestSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data.files.map((f) => f.path) : null;
  } catch {
    return null;
  }
}

/** References looked up once every file that defines ids is done, per file kind. */
const DEFERRED: Record<string, ReadonlySet<string>> = {
  facts: new Set(['subject_entity_id']),
  citations: new Set(['record_id', 'source_id']),
};

/**
 * One written file. A JSONL file is checked line by line from the records line() is told of;
 * any other file (the documents) is scanned as its chunks arrive.
 */
class KnownFile {
  readonly issues = new IssueList();
  private readonly jsonl: boolean;
  private readonly scan: FileScan | null;
  /** The rules checked as lines are written: the file's own, less its deferred references. */
  private readonly now: FileRules;
  /** The rules of a line that is the live version's bytes: its id and fact key, no references. */
  private readonly idsOnly: FileRules;
  /** Lines whose records had a line in the live version, and lines that are its bytes (references not looked up). */
  existed = 0;
  skipped = 0;
  /**
   * The deferred references: each with the values not yet found when their line was written,
   * once each (most are found then: a citation follows its record).
   */
  private readonly later: Array<{ field: string; kind: RefKind; seen: IdSet; values: IdColumn }>;
  private lines = 0;
  private bytes = 0;
  measured: MeasuredFile | undefined;

  constructor(
    readonly rules: FileRules,
    private readonly found: ReturnType<typeof emptyNodeIds>,
    /** The id-defining files done when this file was opened: the ids its lines were checked against. */
    private readonly after: readonly string[],
    /** Whether the references of a line that is the live version's bytes are left to report(). */
    private readonly skipSame: boolean,
  ) {
    this.jsonl = rules.path.endsWith('.jsonl');
    this.scan = this.jsonl ? null : new FileScan(rules, { issue: (issue) => this.issue(issue), record() {} }, false);
    const deferred = DEFERRED[rules.kind] ?? new Set<string>();
    this.now = { ...rules, references: rules.references.filter(([field]) => !deferred.has(field)) };
    this.idsOnly = { ...rules, references: [] };
    this.later = rules.references
      .filter(([field]) => deferred.has(field))
      .map(([field, kind]) => ({ field, kind, seen: new IdSet(), values: new IdColumn() }));
  }

  write(chunk: Uint8Array): void {
    this.bytes += chunk.length;
    this.scan?.push(chunk);
  }

  /**
   * A line (`text`, its bytes) the compiler serialized from `record`, or copied from the live version (null
   * record, with the record's `id` in a record file). The live version's validated bytes (`same`):
   * its own checks stand, and its references are left to report() (keptEveryLiveRecord).
   */
  line(text: Buffer, record: object | null, previous: LinePrevious, id?: string, key?: CopiedKey): void {
    const line = ++this.lines;
    if (record === null) {
      // A line copied from the live version without its record: parsed only when a check needs it.
      if (previous === 'same' && this.skipSame && !this.rules.definesIds && !this.rules.isFacts) {
        this.existed++;
        this.skipped++;
        return;
      }
      // Of such a line's record, only its id is checked, and a fact's key.
      const known = previous === 'same' && this.skipSame && id !== undefined;
      if (known && key !== undefined) {
        this.existed++;
        this.skipped++;
        checkCopiedFact(this.rules.path, id, key, line, this.found, this.issues);
        return;
      }
      record = known && !this.rules.isFacts ? { id } : JSON.parse(text.toString('utf8'));
    }
    const fields = record as Record<string, unknown>;
    if (previous !== 'other') this.existed++;
    if (previous === 'same' && this.skipSame) {
      this.skipped++;
      checkAgainstNode(this.idsOnly, fields, line, this.found, this.issues);
      return;
    }
    if (previous !== 'same') for (const issue of recordIssues(fields, this.rules.path, line)) this.issue(issue);
    checkAgainstNode(this.now, fields, line, this.found, this.issues);
    for (const later of this.later) {
      const value = fields[later.field];
      for (const ref of Array.isArray(value) ? value : [value])
        if (typeof ref === 'string' && !isIdOf(this.found.ids, later.kind, ref) && !later.seen.has(ref)) {
          later.seen.add(ref);
          later.values.push(ref);
        }
    }
  }

  /** Whether the lines were checked after each of `files` was done (those written), so against their ids. */
  checkedAfter(files: readonly string[]): boolean {
    const fileKind = this.rules.kind;
    return files.every(
      (path) => this.after.includes(path) || (DEFERRED[fileKind] !== undefined && deferredCovers(fileKind, path)),
    );
  }

  /** Looks the deferred references up, now that every file that defines ids is done. */
  checkDeferred(): void {
    for (const { field, kind, values } of this.later)
      for (let k = 0; k < values.length; k++) {
        const ref = values.get(k) as string;
        // The line is not kept: report() validates the folder for the canonical report.
        if (!isIdOf(this.found.ids, kind, ref))
          this.issue({
            code: 'ref.dangling',
            severity: 'error',
            file: this.rules.path,
            message: `${field} ${ref} does not resolve to a ${kind} of this node`,
          });
      }
  }

  /** The file is complete: false when its lines were not all told to line(), or its bytes are not TrackedFile's. */
  close(written: WrittenFile): boolean {
    if (this.scan !== null) {
      this.measured = { ...this.scan.end(), checksum: written.checksum };
      return this.measured.bytes === written.bytes;
    }
    this.measured = {
      records: this.lines,
      text: null,
      jsonl: true,
      encodingOk: true,
      bytes: this.bytes,
      checksum: written.checksum,
    };
    return this.bytes === written.bytes && this.lines === written.records;
  }

  private issue(issue: ValidationIssue): void {
    this.issues.add(issue);
  }
}

/**
 * Whether a file of `kind` needs nothing of `path` before its deferred lookups: facts need only
 * the entities for their subject (looked up later); citations need every file (all looked up later).
 */
function deferredCovers(kind: string, path: string): boolean {
  if (kind === 'citations') return true;
  return kind === 'facts' && path.startsWith('entities.');
}

function isIdOf(ids: ReturnType<typeof emptyNodeIds>['ids'], kind: RefKind, id: string): boolean {
  return ids[kind === 'record' ? (idKind(id) ?? 'record') : kind].has(id);
}
