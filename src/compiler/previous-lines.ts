import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';

/** A record line of a previous node file: its id as the line spells it, and the line. */
export interface PreviousLine {
  id: string;
  line: string;
}

const LEADING_ID = /^\{"id":"([^"]+)"/;

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
 * The lines of one file of the previous version, read forward 1 MiB at a time: the compile
 * writes its files in the order the previous compile wrote them, so one pass over each file pairs
 * every line with the line the compile writes (a merge join) without holding the file in memory.
 */
export class ForwardLines {
  private fd: number | null;
  private readonly buffer = Buffer.alloc(1 << 20);
  private lines: string[] = [];
  private at = 0;
  /** The bytes after the last line feed read, kept undecoded (a character may be cut by the read). */
  private rest = Buffer.alloc(0);

  constructor(file: string) {
    this.fd = existsSync(file) ? openSync(file, 'r') : null;
  }

  /** The next line, without its line feed; null at the end (or when the file does not exist). */
  next(): string | null {
    while (this.at >= this.lines.length) {
      if (this.fd === null) return null;
      const n = readSync(this.fd, this.buffer, 0, this.buffer.length, null);
      if (n === 0) {
        this.close();
        const last = this.rest;
        this.rest = Buffer.alloc(0);
        this.lines = last.length === 0 ? [] : [last.toString('utf8')];
        this.at = 0;
        continue;
      }
      // Split on bytes so a multi-byte character cut by the buffer edge is kept whole (as forEachLine).
      const lastLf = this.buffer.lastIndexOf(10, n - 1);
      if (lastLf < 0) {
        this.rest = Buffer.concat([this.rest, this.buffer.subarray(0, n)]);
        continue;
      }
      const text = Buffer.concat([this.rest, this.buffer.subarray(0, lastLf)]).toString('utf8');
      this.rest = Buffer.from(this.buffer.subarray(lastLf + 1, n));
      this.lines = text.split('\n');
      this.at = 0;
    }
    return this.lines[this.at++]!;
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
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
      const id = LEADING_ID.exec(line)?.[1];
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
