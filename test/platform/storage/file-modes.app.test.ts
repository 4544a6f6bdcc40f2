import { chmodSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openControlDb } from '../../../src/platform/storage/control.js';
import { dataDirLayout, graphDbPath } from '../../../src/platform/storage/data-dir.js';
import { GRAPH_DB_OPTIONS } from '../../../src/platform/storage/graph-db.js';
import { openDatabase } from '../../../src/platform/storage/sqlite.js';
import { makeTempDir } from '../../helpers/paths.js';

/**
 * The data directory is private (issue 36 F10): control.sqlite holds password and token hashes
 * and the audit log, so every database file (WAL and SHM too) is 0600 and every folder 0700,
 * whatever the umask, and a data directory made by an older nodectl is tightened when opened.
 */

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

let temp: { dir: string; cleanup: () => void };
let umask: number;
beforeEach(() => {
  temp = makeTempDir('nodectl-modes-');
  umask = process.umask();
});
afterEach(() => {
  process.umask(umask);
  temp.cleanup();
});

function openBoth(root: string) {
  const layout = dataDirLayout(root);
  const control = openControlDb(layout);
  control.prepare('INSERT INTO rate_limits (bucket, window_start, count) VALUES (?, ?, ?)').run('b', 0, 1);
  const graph = openDatabase(graphDbPath(layout, 'web_1'), GRAPH_DB_OPTIONS);
  return { layout, close: () => (control.close(), graph.close()) };
}

describe('data directory modes', () => {
  for (const mask of [0o022, 0o000]) {
    it(`with umask ${mask.toString(8).padStart(3, '0')}: databases, their WAL and SHM are 0600, folders 0700`, () => {
      process.umask(mask);
      const root = join(temp.dir, 'data');
      const { layout, close } = openBoth(root);
      try {
        for (const dir of [
          layout.root,
          layout.graphsDir,
          layout.nodesDir,
          layout.mailDir,
          layout.locksDir,
          layout.keysDir,
        ])
          expect([dir, modeOf(dir)]).toEqual([dir, '700']);
        for (const file of [layout.controlDb, graphDbPath(layout, 'web_1')])
          for (const suffix of ['', '-wal', '-shm'])
            expect([file + suffix, modeOf(file + suffix)]).toEqual([file + suffix, '600']);
      } finally {
        close();
      }
    });
  }

  it('tightens a data directory an older nodectl left readable by others', () => {
    const root = join(temp.dir, 'old');
    const layout = dataDirLayout(root);
    openBoth(root).close();
    for (const dir of [layout.root, layout.graphsDir, layout.mailDir]) chmodSync(dir, 0o755);
    for (const file of [layout.controlDb, graphDbPath(layout, 'web_1')]) chmodSync(file, 0o644);
    mkdirSync(layout.graphsDir, { recursive: true });
    writeFileSync(graphDbPath(layout, 'web_1') + '-wal', '', { mode: 0o644 });
    chmodSync(graphDbPath(layout, 'web_1') + '-wal', 0o644);
    openControlDb(layout).close();
    for (const dir of [layout.root, layout.graphsDir, layout.mailDir]) expect(modeOf(dir)).toBe('700');
    for (const file of [layout.controlDb, graphDbPath(layout, 'web_1'), graphDbPath(layout, 'web_1') + '-wal'])
      expect([file, modeOf(file)]).toEqual([file, '600']);
  });
});
