import { createHash, type Hash } from 'node:crypto';

/**
 * Where compiled node files go. The core writes every file through a sink, chunk by chunk, so a
 * 100,000-item node never sits in memory whole; several files may be open at once. Writes are
 * synchronous: the graph reader streams synchronously too (better-sqlite3), and a sync sink
 * keeps the per-line cost of a million records low.
 */
export interface NodeSink {
  open(path: string): SinkFile;
  /** The folder each file is written into as it is given, when there is one: a closed file can be read back from it. */
  readonly folder?: string;
}

export interface SinkFile {
  /** UTF-8 bytes: encoded once by TrackedFile, which hashes the same bytes. */
  write(chunk: Uint8Array): void;
  /** `written`: the checksum, size and line count TrackedFile measured over exactly the chunks this file was given. */
  close(written: WrittenFile): void;
  /**
   * Told of each JSONL line before its bytes (the line plus a line feed) are written: the record
   * it was serialized from, and what the record was in a validated previous version (a
   * publish's check of its own compile, known-lines.ts). Optional: a sink that only stores bytes
   * leaves it out, and so does a sink that wraps another one. `record` is null for a line the
   * compiler copied from that previous version without building its record (always `same`).
   */
  line?(line: string, record: object | null, previous: LinePrevious): void;
}

/**
 * A record line against a validated previous version of the node, file by file: `same`, the same
 * bytes as the record's line there; `changed`, the record had another line there; `other`, it
 * had none, or that is not known (no validated previous version read alongside the compile).
 */
export type LinePrevious = 'same' | 'changed' | 'other';

/** What the core knows about a file once it is closed: the manifest entry's measured parts. */
export interface WrittenFile {
  path: string;
  checksum: string;
  bytes: number;
  /** Line count for .jsonl files. */
  records?: number;
}

const FLUSH_AT = 64 * 1024;

/**
 * A file being written: buffers chunks, hashes and counts bytes incrementally, and hands
 * 64 KiB pieces to the sink.
 */
export class TrackedFile {
  private readonly hash: Hash = createHash('sha256');
  private readonly target: SinkFile;
  private buffer = '';
  /** Bytes of writeBytes not yet handed on (copies: the caller may reuse its buffer). */
  private binary: Buffer[] = [];
  private binaryBytes = 0;
  private bytes = 0;
  private lines = 0;
  private closed: WrittenFile | null = null;

  constructor(
    sink: NodeSink,
    readonly path: string,
  ) {
    this.target = sink.open(path);
  }

  write(text: string): void {
    if (this.closed) throw new Error(`${this.path} is already closed`);
    if (this.binaryBytes > 0) this.flushBinary();
    this.buffer += text;
    if (this.buffer.length >= FLUSH_AT) this.flush();
  }

  /** Bytes as they are (a binary file): hashed and counted like text. */
  writeBytes(data: Uint8Array): void {
    if (this.closed) throw new Error(`${this.path} is already closed`);
    if (this.buffer !== '') this.flush();
    this.binary.push(Buffer.from(data));
    this.binaryBytes += data.length;
    if (this.binaryBytes >= FLUSH_AT) this.flushBinary();
  }

  /** One JSONL line: the serialized record plus a line feed; `record` and `previous` go to the sink's line(). */
  writeLine(line: string, record?: object | null, previous: LinePrevious = 'other'): void {
    this.lines++;
    if (record !== undefined) this.target.line?.(line, record, previous);
    this.write(line + '\n');
  }

  get lineCount(): number {
    return this.lines;
  }

  close(): WrittenFile {
    if (this.closed) return this.closed;
    this.flushBinary();
    this.flush();
    const closed: WrittenFile = { path: this.path, checksum: 'sha256:' + this.hash.digest('hex'), bytes: this.bytes };
    if (this.path.endsWith('.jsonl')) closed.records = this.lines;
    this.target.close(closed);
    this.closed = closed;
    return closed;
  }

  private flushBinary(): void {
    if (this.binaryBytes === 0) return;
    const data = Buffer.concat(this.binary, this.binaryBytes);
    this.hash.update(data);
    this.bytes += data.length;
    this.target.write(data);
    this.binary = [];
    this.binaryBytes = 0;
  }

  private flush(): void {
    if (this.buffer === '') return;
    const data = Buffer.from(this.buffer, 'utf8');
    this.hash.update(data);
    this.bytes += data.length;
    this.target.write(data);
    this.buffer = '';
  }
}

/** A sink that drops every byte: for a check fed the same bytes elsewhere (the written-node check's own scan). */
export const DISCARDING_SINK: NodeSink = { open: () => ({ write() {}, close() {} }) };

/** A sink that keeps every file as a string: for tests and golden comparisons of small nodes. */
export interface MemorySink extends NodeSink {
  readonly files: Map<string, string>;
  /** The same files as bytes (a binary file such as embeddings.f32 is not text). */
  readonly buffers: Map<string, Buffer>;
}

export function createMemorySink(): MemorySink {
  const files = new Map<string, string>();
  const buffers = new Map<string, Buffer>();
  return {
    files,
    buffers,
    open(path) {
      if (files.has(path)) throw new Error(`${path} was written twice`);
      const parts: Uint8Array[] = [];
      files.set(path, '');
      return {
        write: (chunk) => void parts.push(chunk),
        close: () => {
          const bytes = Buffer.concat(parts);
          buffers.set(path, bytes);
          files.set(path, bytes.toString('utf8'));
        },
      };
    },
  };
}
