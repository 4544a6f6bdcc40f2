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
  /** UTF-8 bytes: encoded once by TrackedFile, which hashes the same bytes (unless the file has digest()). */
  write(chunk: Uint8Array): void;
  /** `written`: the checksum, size and line count TrackedFile measured over exactly the chunks this file was given. */
  close(written: WrittenFile): void;
  /**
   * Told of each JSONL line before its bytes (the line plus a line feed) are written: the record
   * it was serialized from, and what the record was in a validated previous version (a
   * publish's check of its own compile, known-lines.ts). Optional: a sink that only stores bytes
   * leaves it out, and so does a sink that wraps another one. `record` is null for a line the
   * compiler copied from that previous version without building its record (always `same`),
   * with `id`, the record's, when it is a record file's line, and for a fact the `key` fields
   * that make its fact key, when the compiler knows them without parsing the line.
   */
  line?(line: Buffer, record: object | null, previous: LinePrevious, id?: string, key?: CopiedKey): void;
  /**
   * The sha256 (hex) of every byte this file was given, once they are all written: a file whose
   * bytes are hashed where they are written (a directory sink's writing thread, file-writer.ts)
   * has it, and TrackedFile then hashes nothing itself. Throws what writing the bytes threw. A
   * sink wrapping another passes it on (digestOf) only when it hands the bytes on as given.
   */
  digest?(): string;
}

/** `target`'s digest, for a sink that wraps it and hands its bytes on as given. */
export function digestOf(target: SinkFile): Pick<SinkFile, 'digest'> {
  return target.digest === undefined ? {} : { digest: () => target.digest!() };
}

/** A copied fact line's key fields (validate/scan-file.ts checkAgainstNode): its subject entity, predicate and language. */
export interface CopiedKey {
  subject_entity_id: string;
  predicate: string;
  language: string;
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

const PIECE_BYTES = 64 * 1024;

/**
 * A file being written: gathers its bytes, hashes (unless its sink's file does) and counts them
 * incrementally, and hands them to the sink in pieces of 64 KiB (a line may straddle two), each a
 * buffer of its own that the sink may keep.
 */
export class TrackedFile {
  /** Null when the sink's file hashes its bytes itself (SinkFile.digest). */
  private readonly hash: Hash | null;
  private readonly target: SinkFile;
  private piece = Buffer.allocUnsafe(PIECE_BYTES);
  private used = 0;
  private bytes = 0;
  private lines = 0;
  private closed: WrittenFile | null = null;

  constructor(
    sink: NodeSink,
    readonly path: string,
  ) {
    this.target = sink.open(path);
    this.hash = this.target.digest === undefined ? createHash('sha256') : null;
  }

  write(text: string): void {
    this.append(Buffer.from(text, 'utf8'));
  }

  /** Bytes as they are (a binary file): hashed and counted like text. */
  writeBytes(data: Uint8Array): void {
    this.append(data);
  }

  /**
   * One JSONL line: its UTF-8 bytes (`line`, copied) plus a line feed; `record` and `previous`
   * go to the sink's line().
   */
  writeLine(
    line: Buffer,
    record?: object | null,
    previous: LinePrevious = 'other',
    id?: string,
    key?: CopiedKey,
  ): void {
    if (this.closed) throw new Error(`${this.path} is already closed`);
    this.lines++;
    if (record !== undefined) this.target.line?.(line, record, previous, id, key);
    this.append(line);
    this.append(LINE_FEED);
  }

  get lineCount(): number {
    return this.lines;
  }

  close(): WrittenFile {
    if (this.closed) return this.closed;
    if (this.used > 0) this.handOver(this.piece.subarray(0, this.used));
    const checksum = this.hash === null ? this.target.digest!() : this.hash.digest('hex');
    const closed: WrittenFile = { path: this.path, checksum: 'sha256:' + checksum, bytes: this.bytes };
    if (this.path.endsWith('.jsonl')) closed.records = this.lines;
    this.target.close(closed);
    this.closed = closed;
    return closed;
  }

  private append(data: Uint8Array): void {
    if (this.closed) throw new Error(`${this.path} is already closed`);
    for (let done = 0; done < data.length;) {
      const n = Math.min(data.length - done, PIECE_BYTES - this.used);
      this.piece.set(n === data.length ? data : data.subarray(done, done + n), this.used);
      this.used += n;
      done += n;
      if (this.used === PIECE_BYTES) {
        this.handOver(this.piece);
        this.piece = Buffer.allocUnsafe(PIECE_BYTES);
        this.used = 0;
      }
    }
  }

  private handOver(data: Buffer): void {
    this.hash?.update(data);
    this.bytes += data.length;
    this.target.write(data);
  }
}

const LINE_FEED = Buffer.from('\n');

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
