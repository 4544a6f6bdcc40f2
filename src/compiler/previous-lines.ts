import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';

/** A record line of a previous node file: its id as the line spells it, and the line's bytes. */
export interface PreviousLine {
  id: string;
  line: Buffer;
}

/** How a record line starts: `{"id":"`. */
const LEADING_ID = Buffer.from('{"id":"');
const QUOTE = 0x22;
const LINE_FEED = 0x0a;
const READ_BYTES = 1 << 20;

/**
 * The previous version's record file was not written the way the compiler writes one (ids
 * strictly ascending, each spelled without escapes): it cannot be read alongside the compile, so
 * the compile starts again with every line of the previous version hashed up front
 * (readPreviousNode with `hashRecords`).
 */
export class PreviousOrderError extends Error {
  constructor(
    readonly dir: string,
    message: string,
  ) {
    super(message);
    this.name = 'PreviousOrderError';
  }
}

/**
 * The lines of one file of the previous version, read forward 1 MiB at a time, as bytes: the
 * compile writes its files in the order the previous compile wrote them, so one pass over each
 * file pairs every line with the line the compile writes (a merge join) without holding the file
 * in memory, and compares bytes with bytes without decoding them. A line is a view of the read
 * it came in (each read gets a buffer of its own, so a line stays valid while it is held).
 */
export class ForwardLines {
  private fd: number | null;
  private chunk: Buffer = Buffer.alloc(0);
  private at = 0;

  constructor(file: string) {
    this.fd = existsSync(file) ? openSync(file, 'r') : null;
  }

  /** The next line, without its line feed; null at the end (or when the file does not exist). */
  next(): Buffer | null {
    for (;;) {
      const lf = this.chunk.indexOf(LINE_FEED, this.at);
      if (lf >= 0) {
        const line = this.chunk.subarray(this.at, lf);
        this.at = lf + 1;
        return line;
      }
      if (this.fd === null) {
        if (this.at >= this.chunk.length) return null;
        const last = this.chunk.subarray(this.at);
        this.at = this.chunk.length;
        return last;
      }
      // No whole line left: the bytes after the last line feed start the next read's buffer.
      const rest = this.chunk.length - this.at;
      const next = Buffer.allocUnsafe(rest + READ_BYTES);
      this.chunk.copy(next, 0, this.at);
      const n = readSync(this.fd, next, rest, READ_BYTES, null);
      if (n === 0) this.close();
      this.chunk = next.subarray(0, rest + n);
      this.at = 0;
    }
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

/** The id a record line starts with (`{"id":"<id>"`), or undefined for a line without one. */
export function leadingId(line: Buffer): string | undefined {
  if (line.length <= LEADING_ID.length || line.compare(LEADING_ID, 0, LEADING_ID.length, 0, LEADING_ID.length) !== 0)
    return undefined;
  const end = line.indexOf(QUOTE, LEADING_ID.length);
  return end <= LEADING_ID.length ? undefined : line.toString('utf8', LEADING_ID.length, end);
}

/**
 * The lines of one record file of the previous version, read alongside the same file the compile
 * writes: both wrote ids in ascending order, so ForwardLines pairs every record with its
 * previous line.
 */
export class PreviousLines {
  private readonly lines: ForwardLines;
  private lastId: string | null = null;
  private head: PreviousLine | null | undefined;

  constructor(
    private readonly dir: string,
    readonly path: string,
  ) {
    this.lines = new ForwardLines(join(dir, path));
  }

  /** The next line with a leading id, without taking it; null at the end. */
  peek(): PreviousLine | null {
    if (this.head === undefined) this.head = this.read();
    return this.head;
  }

  /** Takes the line peek() returned. */
  take(): PreviousLine | null {
    const line = this.peek();
    this.head = undefined;
    return line;
  }

  close(): void {
    this.lines.close();
  }

  private read(): PreviousLine | null {
    for (;;) {
      const line = this.lines.next();
      if (line === null) return null;
      const id = leadingId(line);
      // readPreviousNode skips a line without a leading id too: it names no record.
      if (id === undefined) continue;
      if (id.includes('\\'))
        throw new PreviousOrderError(this.dir, `${this.path}: the id ${id} is spelled with an escape`);
      if (this.lastId !== null && id <= this.lastId)
        throw new PreviousOrderError(this.dir, `${this.path}: ids out of order (${this.lastId} then ${id})`);
      this.lastId = id;
      return { id, line };
    }
  }
}
