/** The passes of a compile, in the order they run (compile-node.ts). */
export const COMPILE_PASSES = [
  'sources',
  'entity scan',
  'facts',
  'entities',
  'relationships',
  'chunks',
  'qa',
  'derived files',
  'documents',
  'manifest',
] as const;
export type CompilePass = (typeof COMPILE_PASSES)[number];

/** Rows a pass goes through between two reports: often enough to show movement, rarely enough to cost nothing. */
export const COMPILE_PROGRESS_EVERY = 1000;

/**
 * Where a compile stands. `records` are knowledge records as validate and the publish summary
 * count them (the lines of the entity, fact, relationship, chunk, Q&A and source files), written
 * so far: once the last pass is done it equals the node's record count.
 */
export interface CompileProgress {
  /** Passes finished, of `total` (COMPILE_PASSES). */
  done: number;
  total: number;
  /** The pass under way, or the one just finished when `done` has just grown. */
  pass: CompilePass;
  /** The record file the pass is writing, when it writes one per language or a single one. */
  file?: string;
  records: number;
}

export type CompileProgressListener = (progress: CompileProgress) => void;

/**
 * Reports a compile's progress to an optional listener: at each pass's start and end, each
 * record file's start, and every COMPILE_PROGRESS_EVERY rows. It only calls out: nothing the
 * listener does or returns reaches the compiled files, so the bytes stay the same with or without one.
 */
export class CompileReporter {
  private done = 0;
  private records = 0;
  private pass: CompilePass = COMPILE_PASSES[0];
  private file: string | undefined;
  private rows = 0;
  /** Records written to the current file, read at each report. */
  private written: () => number = () => 0;

  constructor(
    private readonly listener: CompileProgressListener | undefined,
    private readonly every = COMPILE_PROGRESS_EVERY,
  ) {}

  /** A pass starts (with no file yet). */
  startPass(pass: CompilePass): void {
    this.pass = pass;
    this.file = undefined;
    this.written = () => 0;
    this.emit();
  }

  /** The pass starts writing `file`; `written` says how many records it holds so far. */
  startFile(file: string, written: () => number): void {
    this.file = file;
    this.written = written;
    this.rows = 0;
    this.emit();
  }

  /** One row of the graph gone through; every `every` rows the count so far is reported. */
  row(): void {
    if (this.listener === undefined) return;
    if (++this.rows % this.every === 0) this.emit();
  }

  /** The current file is closed with `records` knowledge records (0 for a file that holds none). */
  endFile(records: number): void {
    this.records += records;
    this.written = () => 0;
  }

  /** The pass is finished: `done` grows and the totals so far are reported. */
  endPass(): void {
    this.done++;
    this.file = undefined;
    this.emit();
  }

  private emit(): void {
    if (this.listener === undefined) return;
    const progress: CompileProgress = {
      done: this.done,
      total: COMPILE_PASSES.length,
      pass: this.pass,
      records: this.records + this.written(),
    };
    if (this.file !== undefined) progress.file = this.file;
    this.listener(progress);
  }
}
