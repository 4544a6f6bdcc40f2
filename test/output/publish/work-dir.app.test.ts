import { mkdirSync, readdirSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/platform/config/config.js';
import { runPublish } from '../../../src/output/publish/run-publish.js';
import { createFsTarget } from '../../../src/output/publish/targets/fs.js';
import { openControlDb } from '../../../src/platform/storage/control.js';
import { dataDirLayout } from '../../../src/platform/storage/data-dir.js';
import { makeTempDir } from '../../helpers/paths.js';
import { SHOP } from './support.js';

const temp = makeTempDir('nodectl-publish-work-');
afterAll(() => temp.cleanup());

it("compiles in <data-dir>/tmp (the fs store's file system), removes its folder, and removes folders killed publishes left a day ago", async () => {
  const dataDir = join(temp.dir, 'data');
  const settings = resolveConfig({ env: { NODECTL_DATA_DIR: dataDir } }).settings;
  const db = openControlDb(dataDirLayout(dataDir));
  const target = createFsTarget({ root: join(dataDir, 'nodes') });
  const left = (name: string, ageMs: number) => {
    const dir = join(dataDir, 'tmp', name);
    mkdirSync(join(dir, 'node'), { recursive: true });
    const at = new Date(Date.now() - ageMs);
    utimesSync(dir, at, at);
  };
  left('publish-killed', 25 * 3600_000);
  left('publish-running', 60_000);
  left('other', 25 * 3600_000);
  try {
    const result = await runPublish({ settings, controlDb: db, target, source: { kind: 'fixture', dir: SHOP } });
    expect(result.alreadyLive).toBe(false);
    expect(readdirSync(join(dataDir, 'tmp')).sort()).toEqual(['other', 'publish-running']);
  } finally {
    await target.close();
    db.close();
  }
}, 60_000);
