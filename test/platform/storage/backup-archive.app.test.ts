import { closeSync, existsSync, mkdirSync, openSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BackupError, restoreDataDir } from '../../../src/platform/storage/backup.js';
import { readTar, TarWriter } from '../../../src/platform/storage/tar-archive.js';
import { makeTempDir } from '../../helpers/paths.js';

/** The ustar writer and reader behind nodectl backup, and what restore refuses to write. */
const temp = makeTempDir('nodectl-tar-');
afterAll(() => temp.cleanup());

function writeArchive(name: string, entries: Array<[string, string]>): string {
  const file = join(temp.dir, name);
  const fd = openSync(file, 'wx');
  const tar = new TarWriter(fd, 0);
  for (const [path, body] of entries) tar.addBuffer(path, Buffer.from(body));
  tar.finish();
  closeSync(fd);
  return file;
}

describe('tar archive', () => {
  it('round-trips files and folders, a path longer than 100 bytes in the prefix field', () => {
    const long = `nodes/${'d'.repeat(60)}/versions/${'v'.repeat(60)}/cas/${'c'.repeat(64)}.json`;
    const source = join(temp.dir, 'source.bin');
    writeFileSync(source, Buffer.alloc(1500, 7));
    const file = join(temp.dir, 'round.tar');
    const fd = openSync(file, 'wx');
    const tar = new TarWriter(fd, 1_700_000_000);
    tar.addDirectory('graphs');
    const added = tar.addFile(long, source);
    tar.addBuffer('config.json', Buffer.from('{}'));
    tar.finish();
    closeSync(fd);
    expect(added.size).toBe(1500);
    const seen: Array<[string, string, number]> = [];
    readTar(file, (entry) => seen.push([entry.path, entry.type, entry.size]));
    expect(seen).toEqual([
      ['graphs', 'directory', 0],
      [long, 'file', 1500],
      ['config.json', 'file', 2],
    ]);
  });

  it('restore refuses a path outside the data directory and writes nothing', () => {
    const archive = writeArchive('evil.tar', [
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

  it('restore refuses an archive without its manifest, and one whose file does not match its checksum', () => {
    const noManifest = writeArchive('bare.tar', [['control.sqlite', 'x']]);
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
    const tampered = writeArchive('tampered.tar', [
      ['control.sqlite', 'x'],
      ['nodectl-backup.json', JSON.stringify(manifest)],
    ]);
    expect(() => restoreDataDir({ archive: tampered, dataDir: target })).toThrow(/does not match its checksum/);
    expect(readdirSync(target)).toEqual([]);
  });
});
