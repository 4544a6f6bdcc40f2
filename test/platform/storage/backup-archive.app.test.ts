import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { create } from 'tar';
import { afterAll, describe, expect, it } from 'vitest';
import { BackupError, backupDataDir, restoreDataDir } from '../../../src/platform/storage/backup.js';
import { dataDirLayout, ensureDataDir } from '../../../src/platform/storage/data-dir.js';
import { readTar, TarFormatError, TarWriter } from '../../../src/platform/storage/tar-archive.js';
import { makeTempDir } from '../../helpers/paths.js';

/** The tar writer and reader behind nodectl backup (node-tar), and what restore refuses to write. */
const temp = makeTempDir('nodectl-tar-');
afterAll(() => temp.cleanup());

async function writeArchive(name: string, entries: Array<[string, string]>): Promise<string> {
  const file = join(temp.dir, name);
  const fd = openSync(file, 'wx');
  const tar = new TarWriter(fd, 0);
  for (const [path, body] of entries) await tar.addBuffer(path, Buffer.from(body));
  await tar.finish();
  closeSync(fd);
  return file;
}

describe('tar archive', () => {
  it('round-trips files and folders, a path longer than 100 bytes in the prefix field', async () => {
    const long = `nodes/${'d'.repeat(60)}/versions/${'v'.repeat(60)}/cas/${'c'.repeat(64)}.json`;
    const source = join(temp.dir, 'source.bin');
    writeFileSync(source, Buffer.alloc(1500, 7));
    const file = join(temp.dir, 'round.tar');
    const fd = openSync(file, 'wx');
    const tar = new TarWriter(fd, 1_700_000_000);
    await tar.addDirectory('graphs');
    const added = await tar.addFile(long, source);
    await tar.addBuffer('config.json', Buffer.from('{}'));
    await tar.finish();
    closeSync(fd);
    expect(added.size).toBe(1500);
    // Plain ustar: the long path split into the prefix and name fields, no PAX header before it.
    const raw = readFileSync(file);
    expect(raw.subarray(257, 262).toString()).toBe('ustar');
    expect(raw.length % 512).toBe(0);
    const seen: Array<[string, string, number]> = [];
    const bodies: Buffer[] = [];
    readTar(file, (entry) => {
      seen.push([entry.path, entry.type, entry.size]);
      if (entry.type === 'file') return { write: (chunk) => void bodies.push(chunk), close: () => undefined };
    });
    expect(seen).toEqual([
      ['graphs', 'directory', 0],
      [long, 'file', 1500],
      ['config.json', 'file', 2],
    ]);
    expect(Buffer.concat(bodies)).toEqual(Buffer.concat([Buffer.alloc(1500, 7), Buffer.from('{}')]));
    // A gzip-compressed copy reads the same (`gzip backup.tar` keeps it restorable as it is).
    writeFileSync(`${file}.gz`, gzipSync(raw));
    const gzipped: string[] = [];
    readTar(`${file}.gz`, (entry) => void gzipped.push(entry.path));
    expect(gzipped).toEqual(seen.map(([path]) => path));
  });

  it('reading refuses a link entry and a file that is not a tar archive', () => {
    const linkDir = join(temp.dir, 'with-link');
    mkdirSync(linkDir);
    symlinkSync('/etc/passwd', join(linkDir, 'config.json'));
    const linkArchive = join(temp.dir, 'link.tar');
    create({ file: linkArchive, cwd: linkDir, sync: true }, ['config.json']);
    expect(() => readTar(linkArchive, () => undefined)).toThrow(/unsupported tar entry type SymbolicLink/);
    const notTar = join(temp.dir, 'not.tar');
    writeFileSync(notTar, 'x'.repeat(2048));
    expect(() => readTar(notTar, () => undefined)).toThrow(TarFormatError);
  });

  it('restore refuses a path outside the data directory and writes nothing', async () => {
    const archive = await writeArchive('evil.tar', [
      ['control.sqlite', 'x'],
      ['nodes/../../evil', 'x'],
    ]);
    const target = join(temp.dir, 'target-evil');
    expect(() => restoreDataDir({ archive, dataDir: target })).toThrow(BackupError);
    expect(() => restoreDataDir({ archive, dataDir: target })).toThrow(/not part of a nodectl data directory/);
    expect(existsSync(target)).toBe(false);
    expect(existsSync(join(temp.dir, 'evil'))).toBe(false);
    expect(readdirSync(temp.dir).filter((name) => name.startsWith('.'))).toEqual([]);
  });

  it('restore refuses an archive without its manifest, and one whose file does not match its checksum', async () => {
    const noManifest = await writeArchive('bare.tar', [['control.sqlite', 'x']]);
    const target = join(temp.dir, 'target-bare');
    mkdirSync(target);
    expect(() => restoreDataDir({ archive: noManifest, dataDir: target })).toThrow(/has no nodectl-backup.json/);
    const manifest = {
      format: 'nodectl-backup',
      formatVersion: 1,
      nodectlVersion: '0.1.0',
      createdAt: '2026-11-28T00:00:00.000Z',
      withNodes: false,
      websites: [],
      files: [{ path: 'control.sqlite', size: 1, sha256: '0'.repeat(64) }],
    };
    const tampered = await writeArchive('tampered.tar', [
      ['control.sqlite', 'x'],
      ['nodectl-backup.json', JSON.stringify(manifest)],
    ]);
    expect(() => restoreDataDir({ archive: tampered, dataDir: target })).toThrow(/does not match its checksum/);
    expect(readdirSync(target)).toEqual([]);
  });

  it('with the control tables on PostgreSQL, backs up the data directory without a control.sqlite, and restores it', async () => {
    const source = join(temp.dir, 'pg-data');
    ensureDataDir(dataDirLayout(source));
    const archive = join(temp.dir, 'pg-data.tar');
    await expect(backupDataDir({ dataDir: source, archive, withNodes: false })).rejects.toThrow(/no control.sqlite/);
    const result = await backupDataDir({ dataDir: source, archive, withNodes: false, controlTablesElsewhere: true });
    expect(result.websites).toEqual([]);
    const target = join(temp.dir, 'pg-restored');
    mkdirSync(target);
    restoreDataDir({ archive, dataDir: target });
    expect(existsSync(join(target, 'control.sqlite'))).toBe(false);
    expect(readFileSync(join(target, 'keys', 'master.key'))).toEqual(readFileSync(join(source, 'keys', 'master.key')));
  });
});
