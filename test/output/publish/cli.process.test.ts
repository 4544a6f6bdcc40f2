import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsTarget } from '../../../src/output/publish/targets/fs.js';
import { createS3Target } from '../../../src/output/publish/targets/s3.js';
import { createNodeReader } from '../../../src/output/publish/read-node.js';
import { PUBLISH_STEPS, siteHashOf, siteKeys, type PublishTarget } from '../../../src/output/publish/index.js';
import { runNodectl } from '../../helpers/cli.js';
import { runNodectlInProcess } from '../../helpers/cli-in-process.js';
import { makeTempDir, NODECTL_BIN } from '../../helpers/paths.js';
import { startLocalS3, type LocalS3 } from './s3-server.js';
import { changeLastItem, SHOP, SHOP_DOMAIN, SHOP_WEBSITE, shopVariant } from './support.js';

// The killed publishes run the built binary (`npm run build` first); the others run the CLI in this process.
const temp = makeTempDir('nodectl-publish-cli-');
let s3: LocalS3;
let v2: string;
let small: string;
const keys = siteKeys(siteHashOf(SHOP_WEBSITE));

beforeAll(async () => {
  s3 = await startLocalS3();
  v2 = shopVariant(join(temp.dir, 'fx-v2'), { buildTime: '2026-03-02T10:00:00Z', mutate: changeLastItem });
  small = shopVariant(join(temp.dir, 'fx-small'), {
    buildTime: '2026-03-02T11:00:00Z',
    mutate: (items) => items.slice(0, 2),
  });
});
afterAll(async () => {
  await s3.stop();
  temp.cleanup();
});

/** The live version read through the pointer: every file whole (its bytes match the manifest checksum). */
async function expectLiveWhole(target: PublishTarget, ulid: string): Promise<void> {
  const pointer = JSON.parse((await target.get(keys.pointer))!.toString());
  expect(pointer.node_version).toBe(ulid);
  for (const f of pointer.files as Array<{ path: string; checksum: string }>) {
    const body = await target.get(keys.version(ulid, f.path));
    expect(body, f.path).toBeDefined();
    expect(`sha256:${createHash('sha256').update(body!).digest('hex')}`, f.path).toBe(f.checksum);
  }
}

describe.each(['fs', 's3'] as const)(
  'a publish killed at each step leaves the previous version serving whole (%s)',
  (kind) => {
    const dataDir = join(temp.dir, `data-${kind}`);
    let target: PublishTarget;
    const env = () => (kind === 's3' ? { ...s3.env, NODECTL_S3_PREFIX: 'kill' } : {});
    beforeAll(async () => {
      target =
        kind === 'fs'
          ? createFsTarget({ root: join(dataDir, 'nodes') })
          : await createS3Target({
              bucket: s3.bucket,
              prefix: 'kill',
              endpoint: s3.endpoint,
              forcePathStyle: true,
              accessKeyId: 'S3RVER',
              secretAccessKey: 'S3RVER',
            });
    });
    afterAll(async () => target.close());

    it('kills at upload, patch, verify, latest and flip, then a clean publish succeeds', async () => {
      const first = await runNodectl(['--json', 'publish', SHOP, '--target', kind], { dataDir, env: env() });
      expect(first.exitCode, first.stderr).toBe(0);
      const v1 = first.json().versionUlid as string;
      for (const step of PUBLISH_STEPS) {
        const killed = await runNodectl(['publish', v2, '--target', kind], {
          dataDir,
          env: { ...env(), NODECTL_FAULT_AT: step },
        });
        expect(killed.exitCode, `${step}: ${killed.stderr}`).not.toBe(0);
        expect(killed.stderr).toContain(`fault injected at ${step}`);
        await expectLiveWhole(target, v1);
        if (kind === 'fs') {
          const lookup = createNodeReader(createFsTarget({ root: join(dataDir, 'nodes') })).resolveLatest(
            SHOP_DOMAIN,
            'llms.txt',
          );
          expect(lookup).toMatchObject({
            kind: 'file',
            localPath: expect.stringContaining(`/versions/${v1}/llms.txt`),
          });
        }
      }
      // The killed runs left their lock rows behind; their holders are dead, so this publish proceeds.
      const clean = await runNodectl(['--json', 'publish', v2, '--target', kind], { dataDir, env: env() });
      expect(clean.exitCode, clean.stderr).toBe(0);
      const result = clean.json();
      expect(result.previousVersion).toBe(v1);
      await expectLiveWhole(target, result.versionUlid);
      // The killed runs left serving copies of both versions in latest/; the clean run put every one right.
      for (const f of result.files as Array<{ path: string; checksum: string }>) {
        for (const key of [keys.latest(f.path), ...(kind === 's3' ? [`${SHOP_DOMAIN}/${f.path}`] : [])]) {
          expect(
            `sha256:${createHash('sha256')
              .update((await target.get(key))!)
              .digest('hex')}`,
            key,
          ).toBe(f.checksum);
        }
      }
    }, 120_000);
  },
);

describe('nodectl publish, rollback and versions', () => {
  const dataDir = join(temp.dir, 'data-cli');

  it('a second process gets publish.conflict (exit 1) while the first holds the lock; after it dies the lock is free', async () => {
    const holder = execa('node', [NODECTL_BIN, '--data-dir', dataDir, 'publish', SHOP], {
      reject: false,
      env: { NODECTL_FAULT_PAUSE_AT: 'upload' },
      buffer: false,
    });
    await new Promise<void>((resolve, reject) => {
      let seen = '';
      const timer = setTimeout(() => reject(new Error(`holder did not pause: ${seen}`)), 30_000);
      holder.stderr!.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        if (seen.includes('paused at upload')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    const second = await runNodectlInProcess(['publish', SHOP], { dataDir });
    expect(second.exitCode).toBe(1);
    expect(second.stderr).toContain('[publish.conflict]');
    holder.kill('SIGKILL');
    await holder;
    const third = await runNodectlInProcess(['--json', 'publish', SHOP], { dataDir });
    expect(third.exitCode, third.stderr).toBe(0);
    expect(third.json().versionLabel).toMatch(/^\d{4}-\d{2}-\d{2}\.1$/);
  }, 60_000);

  it('exit codes: 2 for bad usage, 3 for a gate, 0 for a dry run that writes nothing', async () => {
    expect((await runNodectlInProcess(['publish'], { dataDir })).exitCode).toBe(2);
    expect((await runNodectlInProcess(['publish', SHOP, '--target', 'ftp'], { dataDir })).exitCode).toBe(2);
    expect((await runNodectlInProcess(['publish', SHOP, '--node', SHOP], { dataDir })).exitCode).toBe(2);
    const gate = await runNodectlInProcess(['--json', 'publish', small], {
      dataDir,
      env: { NODECTL_PUBLISH_MAX_DROP: '0.2' },
    });
    expect(gate.exitCode).toBe(3);
    expect(gate.json()).toMatchObject({ ok: false, error: { code: 'publish.drop_gate' } });
    const dry = await runNodectlInProcess(['--json', 'publish', v2, '--dry-run'], { dataDir });
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.json()).toMatchObject({ dryRun: true, objectsWritten: 0 });
    expect(dry.json().files.some((f: { state: string }) => f.state === 'carried')).toBe(true);
    const versions = await runNodectlInProcess(['--json', 'versions', '--website', SHOP_WEBSITE], { dataDir });
    expect(versions.json()).toHaveLength(1);
  }, 60_000);

  it('publishes v2, rolls back to v1, and lists both', async () => {
    const before = (await runNodectlInProcess(['--json', 'versions', '--website', SHOP_WEBSITE], { dataDir })).json()[0]
      .node_version;
    const published = await runNodectlInProcess(['publish', v2], { dataDir });
    expect(published.exitCode, published.stderr).toBe(0);
    expect(published.stdout).toMatch(/published [0-9A-Z]{26} \(\d{4}-\d{2}-\d{2}\.2\)/);
    expect(published.stdout).toMatch(/carried forward/);
    expect(published.stdout).toContain(`/nodes/${SHOP_DOMAIN}/manifest.json`);
    const rolled = await runNodectlInProcess(['--json', 'rollback', '--website', SHOP_WEBSITE, '--to', before], {
      dataDir,
    });
    expect(rolled.exitCode, rolled.stderr).toBe(0);
    expect(rolled.json().versionUlid).toBe(before);
    const versions = (await runNodectlInProcess(['--json', 'versions', '--website', SHOP_WEBSITE], { dataDir })).json();
    expect(versions).toHaveLength(2);
    expect(versions.find((v: { live: boolean }) => v.live).node_version).toBe(before);
    expect((await runNodectlInProcess(['rollback', '--website', SHOP_WEBSITE], { dataDir })).exitCode).toBe(2);
    const unknown = await runNodectlInProcess(
      ['rollback', '--website', SHOP_WEBSITE, '--to', '01ARZ3NDEKTSV4RRFFQ69G5FAV'],
      {
        dataDir,
      },
    );
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr).toContain('[version.not_found]');
  }, 60_000);
});
