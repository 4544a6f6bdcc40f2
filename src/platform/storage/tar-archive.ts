import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream, statSync, type WriteStream } from 'node:fs';
import { Header, list, Pack, ReadEntry } from 'tar';

/**
 * The tar files of `nodectl backup`, written and read with node-tar (npm's own tar package): plain
 * ustar files and folders that `tar -tf` lists, streamed in and out in chunks (a graph may be
 * gigabytes). Only regular files and folders are read back; the caller checks each path.
 */
const CHUNK = 1 << 20;

export interface TarEntry {
  /** A relative path with `/` separators; a folder's ends without a slash. */
  readonly path: string;
  readonly type: 'file' | 'directory';
  readonly size: number;
  readonly mode: number;
}

export class TarFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TarFormatError';
  }
}

/** Appends entries, one after another, to an open file; `finish` writes the end-of-archive blocks. */
export class TarWriter {
  private readonly pack = new Pack({ strict: true });
  private readonly out: WriteStream;
  private readonly written: Promise<void>;
  private readonly mtime: Date;

  constructor(fd: number, mtimeSeconds: number) {
    this.mtime = new Date(mtimeSeconds * 1000);
    this.out = createWriteStream('', { fd, autoClose: false });
    this.written = new Promise<void>((resolve, reject) => {
      this.out.on('finish', resolve).on('error', reject);
      this.pack.on('error', reject);
    });
    // A failure surfaces from finish(), or from the add that hit it; never as an unhandled rejection.
    this.written.catch(() => undefined);
    this.pack.pipe(this.out);
  }

  /**
   * One entry: its header, then `body` chunk by chunk as the file takes them (node-tar pads the last
   * block). Entries are added one at a time, so only the chunk in flight is held in memory.
   */
  private async add(
    fields: { path: string; type: 'File' | 'Directory'; size: number; mode: number },
    body?: AsyncIterable<Buffer>,
  ): Promise<void> {
    const entry = new ReadEntry(new Header({ ...fields, mtime: this.mtime, uid: 0, gid: 0 }));
    this.pack.add(entry);
    if (body)
      for await (const chunk of body) {
        if (!entry.write(chunk)) await Promise.race([once(entry, 'drain'), this.written]);
      }
    entry.end();
  }

  addDirectory(path: string, mode = 0o700): Promise<void> {
    return this.add({ path: `${path}/`, type: 'Directory', size: 0, mode });
  }

  /** Copies a file into the archive in chunks; returns its size and SHA-256 (hex). */
  async addFile(path: string, source: string, mode = 0o600): Promise<{ size: number; sha256: string }> {
    const size = statSync(source).size;
    const hash = createHash('sha256');
    let copied = 0;
    // The size is the one the header gave: the read stops there even if the file grows meanwhile.
    const stream = createReadStream(source, { start: 0, end: Math.max(0, size - 1), highWaterMark: CHUNK });
    try {
      await this.add(
        { path, type: 'File', size, mode },
        size === 0
          ? undefined
          : (async function* () {
              for await (const chunk of stream as AsyncIterable<Buffer>) {
                hash.update(chunk);
                copied += chunk.length;
                yield chunk;
              }
            })(),
      );
    } finally {
      stream.destroy();
    }
    if (copied !== size) throw new TarFormatError(`${source} shrank while it was archived`);
    return { size, sha256: hash.digest('hex') };
  }

  addBuffer(path: string, body: Buffer, mode = 0o600): Promise<void> {
    return this.add(
      { path, type: 'File', size: body.length, mode },
      (async function* () {
        yield body;
      })(),
    );
  }

  /** The end-of-archive blocks; resolves once everything is in the file (not yet fsynced). */
  async finish(): Promise<void> {
    this.pack.end();
    await this.written;
  }
}

/** What reading an entry's body writes to: `write` for each chunk, `close` once, also on a failure. */
export interface EntrySink {
  write(chunk: Buffer): void;
  close(): void;
}

/**
 * Reads the archive at `file` entry by entry, in 1 MiB reads: `onEntry` gets each header and may
 * return a sink for a file's body. Anything but files and folders (links, devices, FIFOs) is
 * refused, and so is a damaged header or a truncated body.
 */
export function readTar(file: string, onEntry: (entry: TarEntry) => EntrySink | void): void {
  let open: EntrySink | undefined;
  const closeOpen = () => {
    const sink = open;
    open = undefined;
    sink?.close();
  };
  try {
    list({
      file,
      sync: true,
      strict: true,
      maxReadSize: CHUNK,
      onReadEntry: (entry: ReadEntry) => {
        const type =
          entry.type === 'Directory'
            ? 'directory'
            : entry.type === 'File' || entry.type === 'OldFile'
              ? 'file'
              : undefined;
        const path = entry.path.replace(/\/$/, '');
        if (!type) throw new TarFormatError(`unsupported tar entry type ${entry.type} for ${path}`);
        const sink = onEntry({ path, type, size: type === 'file' ? entry.size : 0, mode: entry.mode ?? 0 });
        if (!sink) return;
        open = sink;
        entry.on('data', (chunk: Buffer) => sink.write(chunk));
        entry.on('end', closeOpen);
      },
    });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('TAR_'))
      throw new TarFormatError(`${(error as Error).message}: not a tar file, or a damaged one`);
    throw error;
  } finally {
    closeOpen();
  }
}
