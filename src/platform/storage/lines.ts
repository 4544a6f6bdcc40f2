import { closeSync, openSync, readSync } from 'node:fs';

/** Calls `onLine` with each line of a file, reading 1 MiB at a time (node files can be large). */
export function forEachLine(path: string, onLine: (line: string) => void): void {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(1 << 20);
    // The bytes after the last line feed read, kept undecoded: a multi-byte character cut by the
    // buffer edge is decoded whole with the bytes of the next read.
    let rest = Buffer.alloc(0);
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, null);
      if (n === 0) break;
      const lastLf = buffer.lastIndexOf(10, n - 1);
      if (lastLf < 0) {
        rest = Buffer.concat([rest, buffer.subarray(0, n)]);
        continue;
      }
      const text = Buffer.concat([rest, buffer.subarray(0, lastLf)]).toString('utf8');
      rest = Buffer.from(buffer.subarray(lastLf + 1, n));
      for (const line of text.split('\n')) onLine(line);
    }
    if (rest.length > 0) onLine(rest.toString('utf8'));
  } finally {
    closeSync(fd);
  }
}
