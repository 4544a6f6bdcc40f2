import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/platform/config/config.js';
import { AppError } from '../../../src/platform/errors/app-error.js';
import {
  flipToStoredVersion,
  listStoredVersions,
  rollbackNode,
  runPublish,
  siteHashOf,
  siteKeys,
  type PublishTarget,
} from '../../../src/output/publish/index.js';
import { createFsTarget } from '../../../src/output/publish/targets/fs.js';
import { openControlDb } from '../../../src/platform/storage/control.js';
import { dataDirLayout } from '../../../src/platform/storage/data-dir.js';
import type { Db } from '../../../src/platform/storage/sqlite.js';
import { makeTempDir, NODECTL_BIN } from '../../helpers/paths.js';
import { SHOP, SHOP_WEBSITE, changeLastItem, shopVariant } from './support.js';
import { appErrorFrom } from '../../helpers/app-error.js';

const temp = makeTempDir('nodectl-publish-concurrency-');
const keys = siteKeys(siteHashOf(SHOP_WEBSITE));
let changed: string;

beforeAll(() => {
  changed = shopVariant(join(temp.dir, 'fx-changed'), { mutate: changeLastItem });
});
afterAll(() => temp.cleanup());

describe('concurrent and out-of-order publishes of one website (in-process)', () => {
  const dataDir = join(temp.dir, 'data');
  const settings = resolveConfig({ env: { NODECTL_DATA_DIR: dataDir } }).settings;
  let db: Db;
  let target: PublishTarget;
  const publish = (dir: string, buildTime: string, extra: { force?: boolean; dryRun?: boolean } = {}) =>
    runPublish({ settings, controlDb: db, target, source: { kind: 'fixture', dir }, buildTime, ...extra });
  const live = async () => JSON.parse((await target.get(keys.pointer))!.toString()).node_version as string;
  beforeAll(() => {
    db = openControlDb(dataDirLayout(dataDir));
    target = createFsTarget({ root: join(dataDir, 'nodes') });
  });
  afterAll(async () => {
    await target.close();
    db.close();
  });

  it('bug "concurrent publishes both answer 200": of two publishes started together one wins, the other gets 409 publish.conflict (retryable) before compiling', async () => {
    const [older, newer] = await Promise.allSettled([
      publish(SHOP, '2026-03-02T09:00:00Z'),
      publish(changed, '2026-03-02T10:00:00Z'),
    ]);
    const outcomes = [older, newer];
    const won = outcomes.filter((o) => o.status === 'fulfilled');
    const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0]!.reason).toBeInstanceOf(AppError);
    expect(lost[0]!.reason).toMatchObject({ code: 'publish.conflict', status: 409, retryable: true });
    expect(await live()).toBe((won[0] as PromiseFulfilledResult<{ versionUlid: string }>).value.versionUlid);
    expect(await listStoredVersions(target, siteHashOf(SHOP_WEBSITE))).toHaveLength(1);
  });

  it('bug "latest/ can end on the older build": a publish of a build older than the live one is refused (409 publish.conflict), nothing written; a rollback may go back', async () => {
    const newest = await publish(changed, '2026-03-05T09:00:00Z', { force: true });
    const before = await target.list(keys.root);
    for (const dryRun of [false, true]) {
      const refused = await appErrorFrom(publish(SHOP, '2026-03-04T09:00:00Z', { force: true, dryRun }));
      expect(refused).toMatchObject({
        code: 'publish.conflict',
        retryable: true,
        details: { liveVersion: newest.versionUlid },
      });
      expect(refused.message).toContain('never moves latest/ backwards');
    }
    expect(await target.list(keys.root)).toEqual(before);
    expect(await live()).toBe(newest.versionUlid);

    // A stored older version is not served again by a publish either (nor by a non-rollback flip), only by a rollback.
    const stored = (await listStoredVersions(target, siteHashOf(SHOP_WEBSITE))).find(
      (v) => v.node_version !== newest.versionUlid,
    )!;
    expect(
      (
        await appErrorFrom(
          flipToStoredVersion(target, SHOP_WEBSITE, stored.node_version, undefined, { rollback: false }),
        )
      ).code,
    ).toBe('publish.conflict');
    expect(await live()).toBe(newest.versionUlid);
    await rollbackNode({ target, controlDb: db, websiteId: SHOP_WEBSITE, to: stored.node_version });
    expect(await live()).toBe(stored.node_version);
    // After a rollback, a newer build publishes as usual.
    const next = await publish(SHOP, '2026-03-06T09:00:00Z', { force: true });
    expect(await live()).toBe(next.versionUlid);
  });
});

/** A fixture large enough that a publish runs for a while (about 1,500 items). */
function writeLargerFixture(dir: string, buildTime: string, revision: number): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'site.json'),
    JSON.stringify({
      website_id: 'web_01JCONCURRENTCLI000000000',
      domain: 'concurrent.example',
      plan: 'pro',
      build_time: buildTime,
    }),
  );
  const items = Array.from({ length: 1500 }, (_, i) => ({
    type: 'post',
    id: `post:${i}`,
    url: `https://concurrent.example/posts/${i}`,
    title: `Post ${i}`,
    text: `Post ${i} revision ${revision}\n\nAbout roasting coffee, part ${i}.`,
    checksum: `sha256:${(i * 10 + revision).toString(16).padStart(64, '0')}`,
  }));
  writeFileSync(join(dir, 'items.jsonl'), items.map((i) => JSON.stringify(i) + '\n').join(''));
  return dir;
}

describe('two nodectl processes publishing one website at once', () => {
  it('bug "concurrent publishes both answer 200 and latest/ can end on the older build": each exits 0 or 1 with publish.conflict, and the newer build is live whenever it succeeded', async () => {
    const dataDir = join(temp.dir, 'data-cli');
    const older = writeLargerFixture(join(temp.dir, 'fx-older'), '2026-03-02T09:00:00Z', 1);
    const newer = writeLargerFixture(join(temp.dir, 'fx-newer'), '2026-03-02T10:00:00Z', 2);
    const run = (dir: string) =>
      execa('node', [NODECTL_BIN, '--data-dir', dataDir, '--json', 'publish', dir], {
        reject: false,
        env: { NODECTL_LOG_LEVEL: 'warn' },
      });
    const [a, b] = await Promise.all([run(older), run(newer)]);
    // The version published, the error code, or the crash (no JSON on stdout).
    const outcome = (r: typeof a): string => {
      try {
        const out = JSON.parse(String(r.stdout)) as { versionUlid?: string; error?: { code: string } };
        return out.versionUlid ?? out.error!.code;
      } catch {
        return `crashed: ${String(r.stderr).slice(0, 300)}`;
      }
    };
    const results = [outcome(a), outcome(b)];
    for (const [i, r] of [a, b].entries())
      expect(
        r.exitCode === 0 || (r.exitCode === 1 && results[i] === 'publish.conflict'),
        `${r.exitCode} ${r.stderr}`,
      ).toBe(true);
    expect([a, b].some((r) => r.exitCode === 0)).toBe(true);
    const target = createFsTarget({ root: join(dataDir, 'nodes') });
    const live = JSON.parse(
      (await target.get(siteKeys(siteHashOf('web_01JCONCURRENTCLI000000000')).pointer))!.toString(),
    ).node_version;
    expect(live).toBe(b.exitCode === 0 ? results[1] : results[0]);
  }, 120_000);
});
