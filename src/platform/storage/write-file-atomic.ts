import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

/**
 * Writes a whole file or nothing: a temp file beside it (same folder, so rename is atomic), fsynced,
 * then renamed over the name. A reader or a crash sees the old file or the new one, never a part.
 * Temp names start with a dot, so listings that skip dot files never pick one up.
 */
export function writeFileAtomic(path: string, body: string | Uint8Array, options: { mode?: number } = {}): void {
  mkdirSync(dirname(path), { recursive: true });
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const fd = openSync(temp, 'wx', options.mode ?? 0o644);
    try {
      writeSync(fd, typeof body === 'string' ? Buffer.from(body, 'utf8') : body);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}
