import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';

/**
 * A minimal POSIX ustar writer and reader: regular files and folders only, names split into the
 * header's prefix (155) and name (100) fields, sizes below 8 GiB. No tar library is a dependency
 * (tar-stream sits in node_modules only as another package's extraneous leftover), and a backup
 * needs no more than this; the archives it writes are plain tar files that `tar -tf` lists.
 */
const BLOCK = 512;
const MAX_SIZE = 0o77777777777;

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

function splitName(path: string): { name: string; prefix: string } {
  if (Buffer.byteLength(path) <= 100) return { name: path, prefix: '' };
  for (let cut = path.indexOf('/'); cut !== -1; cut = path.indexOf('/', cut + 1)) {
    const prefix = path.slice(0, cut);
    const name = path.slice(cut + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(name) <= 100) return { name, prefix };
  }
  throw new TarFormatError(`path too long for a ustar archive: ${path}`);
}

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, '0') + '\0';
}

function header(entry: TarEntry, mtimeSeconds: number): Buffer {
  if (entry.size > MAX_SIZE) throw new TarFormatError(`${entry.path} is larger than a ustar entry holds (8 GiB)`);
  const block = Buffer.alloc(BLOCK);
  const { name, prefix } = splitName(entry.type === 'directory' ? `${entry.path}/` : entry.path);
  block.write(name, 0, 100, 'utf8');
  block.write(octal(entry.mode & 0o7777, 8), 100, 8, 'ascii');
  block.write(octal(0, 8), 108, 8, 'ascii');
  block.write(octal(0, 8), 116, 8, 'ascii');
  block.write(octal(entry.type === 'file' ? entry.size : 0, 12), 124, 12, 'ascii');
  block.write(octal(mtimeSeconds, 12), 136, 12, 'ascii');
  block.write('        ', 148, 8, 'ascii');
  block.write(entry.type === 'file' ? '0' : '5', 156, 1, 'ascii');
  block.write('ustar\0', 257, 6, 'ascii');
  block.write('00', 263, 2, 'ascii');
  block.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(octal(sum, 7) + ' ', 148, 8, 'ascii');
  return block;
}

/** Writes entries one after another into an open file; `finish` writes the two zero blocks. */
export class TarWriter {
  constructor(
    private readonly fd: number,
    private readonly mtimeSeconds: number,
  ) {}

  addDirectory(path: string, mode = 0o700): void {
    writeSync(this.fd, header({ path, type: 'directory', size: 0, mode }, this.mtimeSeconds));
  }

  /** Copies a file into the archive in chunks; returns its size and SHA-256 (hex). */
  addFile(path: string, source: string, mode = 0o600): { size: number; sha256: string } {
    const input = openSync(source, 'r');
    try {
      const size = fstatSync(input).size;
      writeSync(this.fd, header({ path, type: 'file', size, mode }, this.mtimeSeconds));
      const hash = createHash('sha256');
      const chunk = Buffer.alloc(1 << 20);
      let copied = 0;
      while (copied < size) {
        const read = readSync(input, chunk, 0, Math.min(chunk.length, size - copied), copied);
        if (read === 0) throw new TarFormatError(`${source} shrank while it was archived`);
        writeSync(this.fd, chunk, 0, read);
        hash.update(chunk.subarray(0, read));
        copied += read;
      }
      const pad = (BLOCK - (size % BLOCK)) % BLOCK;
      if (pad) writeSync(this.fd, Buffer.alloc(pad));
      return { size, sha256: hash.digest('hex') };
    } finally {
      closeSync(input);
    }
  }

  addBuffer(path: string, body: Buffer, mode = 0o600): void {
    writeSync(this.fd, header({ path, type: 'file', size: body.length, mode }, this.mtimeSeconds));
    writeSync(this.fd, body);
    const pad = (BLOCK - (body.length % BLOCK)) % BLOCK;
    if (pad) writeSync(this.fd, Buffer.alloc(pad));
  }

  finish(): void {
    writeSync(this.fd, Buffer.alloc(BLOCK * 2));
  }
}

function readString(block: Buffer, offset: number, length: number): string {
  const field = block.subarray(offset, offset + length);
  const end = field.indexOf(0);
  return field.subarray(0, end === -1 ? length : end).toString('utf8');
}

function readOctal(block: Buffer, offset: number, length: number, what: string): number {
  const text = readString(block, offset, length).trim();
  if (!/^[0-7]*$/.test(text)) throw new TarFormatError(`bad ${what} field in a tar header: ${JSON.stringify(text)}`);
  return text === '' ? 0 : parseInt(text, 8);
}

/**
 * Reads the archive at `file` entry by entry: `onEntry` gets each header and, for a file, a
 * function that copies its body to another open file descriptor. Anything but ustar files and
 * folders (links, devices, PAX headers) is refused.
 */
export function readTar(file: string, onEntry: (entry: TarEntry, copyTo: (fd: number) => void) => void): void {
  const fd = openSync(file, 'r');
  try {
    const total = fstatSync(fd).size;
    const block = Buffer.alloc(BLOCK);
    let position = 0;
    for (;;) {
      if (position + BLOCK > total) throw new TarFormatError('the archive ends before its end-of-archive blocks');
      readSync(fd, block, 0, BLOCK, position);
      position += BLOCK;
      if (block.every((byte) => byte === 0)) return;
      let sum = 0;
      for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : block[i]!;
      if (sum !== readOctal(block, 148, 8, 'checksum'))
        throw new TarFormatError('a tar header checksum does not match: not a tar file, or a damaged one');
      const typeflag = String.fromCharCode(block[156]!);
      const prefix = readString(block, 345, 155);
      const name = readString(block, 0, 100);
      const path = (prefix ? `${prefix}/${name}` : name).replace(/\/$/, '');
      const size = readOctal(block, 124, 12, 'size');
      const mode = readOctal(block, 100, 8, 'mode');
      const type = typeflag === '5' ? 'directory' : typeflag === '0' || typeflag === '\0' ? 'file' : undefined;
      if (!type) throw new TarFormatError(`unsupported tar entry type ${JSON.stringify(typeflag)} for ${path}`);
      const bodyStart = position;
      const bodySize = type === 'file' ? size : 0;
      if (bodyStart + bodySize > total) throw new TarFormatError(`the archive ends inside ${path}`);
      onEntry({ path, type, size: bodySize, mode }, (out) => {
        const chunk = Buffer.alloc(1 << 20);
        let copied = 0;
        while (copied < bodySize) {
          const read = readSync(fd, chunk, 0, Math.min(chunk.length, bodySize - copied), bodyStart + copied);
          writeSync(out, chunk, 0, read);
          copied += read;
        }
      });
      position += Math.ceil(bodySize / BLOCK) * BLOCK;
    }
  } finally {
    closeSync(fd);
  }
}
