import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateNode } from '../../../src/compiler/index.js';
import { resolveConfig } from '../../../src/platform/config/config.js';
import {
  rollbackNode,
  runPublish,
  siteHashOf,
  siteKeys,
  type PublishTarget,
} from '../../../src/output/publish/index.js';
import { createNodeReader } from '../../../src/output/publish/read-node.js';
import { createFsTarget } from '../../../src/output/publish/targets/fs.js';
import { createS3Target } from '../../../src/output/publish/targets/s3.js';
import { openControlDb } from '../../../src/platform/storage/control.js';
import { dataDirLayout } from '../../../src/platform/storage/data-dir.js';
import type { Db } from '../../../src/platform/storage/sqlite.js';
import { makeTempDir } from '../../helpers/paths.js';
import { startLocalS3, type LocalS3 } from './s3-server.js';
import { SHOP, SHOP_DOMAIN, SHOP_WEBSITE, shopVariant } from './support.js';

const temp = makeTempDir('nodectl-publish-serving-');
const keys = siteKeys(siteHashOf(SHOP_WEBSITE));
let s3: LocalS3;
let englishOnly: string;

beforeAll(async () => {
  s3 = await startLocalS3();
  englishOnly = shopVariant(join(temp.dir, 'fx-en'), { mutate: (items) => items.filter((i) => i.language !== 'de') });
});
afterAll(async () => {
  await s3.stop();
  temp.cleanup();
});

/** Every entry under `dir` whose name starts with .tmp- (temp files a write left behind). */
function strayTemps(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.name.startsWith('.tmp-'))
    .map((e) => join(e.parentPath, e.name));
}

describe.each(['fs', 's3'] as const)('serving copies after many publishes (%s)', (kind) => {
  const dataDir = join(temp.dir, `data-${kind}`);
  const nodesRoot = join(dataDir, 'nodes');
  const settings = resolveConfig({ env: { NODECTL_DATA_DIR: dataDir } }).settings;
  let target: PublishTarget;
  let db: Db;
  beforeAll(async () => {
    db = openControlDb(dataDirLayout(dataDir));
    target =
      kind === 'fs'
        ? createFsTarget({ root: nodesRoot })
        : await createS3Target({
            bucket: s3.bucket,
            prefix: 'serving',
            endpoint: s3.endpoint,
            forcePathStyle: true,
            accessKeyId: 'S3RVER',
            secretAccessKey: 'S3RVER',
          });
  });
  afterAll(async () => {
    await target.close();
    db.close();
  });

  /** latest/ (and the S3 alias) hold exactly the live manifest's files; on fs no temp file is left anywhere. */
  async function expectOnlyLiveFiles(): Promise<void> {
    const pointer = JSON.parse((await target.get(keys.pointer))!.toString()) as { files: Array<{ path: string }> };
    const names = ['manifest.json', ...pointer.files.map((f) => f.path)].sort();
    if (kind === 'fs') {
      expect(readdirSync(join(nodesRoot, keys.latestPrefix)).sort()).toEqual(names);
      expect(strayTemps(nodesRoot)).toEqual([]);
      const report = await validateNode(join(nodesRoot, keys.latestPrefix));
      expect(report.errors).toEqual([]);
      expect(report.warnings).toEqual([]);
    } else {
      expect((await target.list(keys.latestPrefix)).map((k) => k.slice(keys.latestPrefix.length))).toEqual(names);
      expect((await target.list(`${SHOP_DOMAIN}/`)).map((k) => k.slice(SHOP_DOMAIN.length + 1))).toEqual(names);
    }
  }

  it('bug ".tmp-<pid>-<n> hard links pile up in latest/": after six publishes and a rollback latest/ holds only the manifest\'s files', async () => {
    const publish = (dir: string, day: number, extra: { allowDrop?: boolean } = {}) =>
      runPublish({
        settings,
        controlDb: db,
        target,
        source: { kind: 'fixture', dir },
        buildTime: `2026-03-${String(day).padStart(2, '0')}T09:00:00Z`,
        force: true,
        ...extra,
      });
    const first = await publish(SHOP, 2);
    await expectOnlyLiveFiles();
    // Forced builds of the same content: every serving copy is linked again over a link to the same bytes.
    for (const day of [3, 4, 5, 6]) {
      await publish(SHOP, day);
      await expectOnlyLiveFiles();
    }
    // A version without the German files: their serving copies go.
    const english = await publish(englishOnly, 7, { allowDrop: true });
    expect(english.changes.filter((c) => c.change === 'removed').length).toBeGreaterThan(0);
    await expectOnlyLiveFiles();
    await rollbackNode({ target, controlDb: db, websiteId: SHOP_WEBSITE, to: first.versionUlid });
    await expectOnlyLiveFiles();
    if (kind === 'fs') {
      const lookup = createNodeReader(createFsTarget({ root: nodesRoot })).resolveLatest(SHOP_DOMAIN, 'facts.de.jsonl');
      expect(lookup).toMatchObject({
        kind: 'file',
        localPath: expect.stringContaining(`/versions/${first.versionUlid}/`),
      });
    }
  }, 120_000);
});
