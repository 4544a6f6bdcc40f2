import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/platform/config/config.js';
import {
  runPublish,
  siteHashOf,
  siteKeys,
  type PublishResult,
  type PublishTarget,
} from '../../../src/output/publish/index.js';
import { createFsTarget } from '../../../src/output/publish/targets/fs.js';
import { createS3Target } from '../../../src/output/publish/targets/s3.js';
import { openControlDb } from '../../../src/platform/storage/control.js';
import { dataDirLayout } from '../../../src/platform/storage/data-dir.js';
import { runNodectlInProcess } from '../../helpers/cli-in-process.js';
import { makeTempDir, PROJECT_ROOT } from '../../helpers/paths.js';
import { startLocalS3, type LocalS3 } from './s3-server.js';

const temp = makeTempDir('nodectl-publish-fixtures-');
const FIXTURES = readdirSync(join(PROJECT_ROOT, 'fixtures'))
  .sort()
  .map((name) => ({ name, dir: join(PROJECT_ROOT, 'fixtures', name) }));
const SHARED = { name: 'generated-shared-bytes', dir: join(temp.dir, 'fx-shared') };
let s3: LocalS3;

/**
 * Six languages of one plain page each: every language has an empty qa file, so several files
 * share bytes (the empty body), and the empty changes.jsonl of a first version is a patched body
 * with the same bytes as compiled files. (Facts are no longer empty: a plain text item's first
 * line is its title.)
 */
function writeSharedBytesFixture(dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'site.json'),
    JSON.stringify({
      website_id: 'web_01JSHAREDBYTES00000000000',
      domain: 'shared.example',
      build_time: '2026-03-02T09:00:00Z',
    }),
  );
  const items = ['en', 'de', 'fr', 'es', 'it', 'nl'].map((language, i) => ({
    type: 'page',
    id: `page:${language}`,
    url: `https://shared.example/${language}/`,
    language,
    text: `Page ${language}\n\nNothing else here.`,
    checksum: `sha256:${String(i).padStart(64, '0')}`,
  }));
  writeFileSync(join(dir, 'items.jsonl'), items.map((i) => JSON.stringify(i) + '\n').join(''));
}

beforeAll(async () => {
  s3 = await startLocalS3();
  writeSharedBytesFixture(SHARED.dir);
});
afterAll(async () => {
  await s3.stop();
  temp.cleanup();
});

const checksum = (body: Buffer) => `sha256:${createHash('sha256').update(body).digest('hex')}`;
const pointerOf = async (target: PublishTarget, siteHash: string) =>
  JSON.parse((await target.get(siteKeys(siteHash).pointer))!.toString('utf8')) as {
    node_version: string;
    domain: string;
    files: Array<{ path: string; checksum: string }>;
  };

/** The live version is whole in versions/<ulid>/ and latest/ (and the S3 alias), and latest/ holds exactly its files. */
async function expectLiveWholeAndClean(
  target: PublishTarget,
  kind: 'fs' | 's3',
  siteHash: string,
  result: PublishResult,
  nodesRoot: string,
): Promise<void> {
  const keys = siteKeys(siteHash);
  const pointer = await pointerOf(target, siteHash);
  expect(pointer.node_version).toBe(result.versionUlid);
  const names = ['manifest.json', ...pointer.files.map((f) => f.path)].sort();
  for (const f of pointer.files) {
    for (const key of [
      keys.version(pointer.node_version, f.path),
      keys.latest(f.path),
      ...(kind === 's3' ? [`${pointer.domain}/${f.path}`] : []),
    ]) {
      const body = await target.get(key);
      expect(body, key).toBeDefined();
      expect(checksum(body!), key).toBe(f.checksum);
    }
  }
  if (kind === 'fs') expect(readdirSync(join(nodesRoot, siteHash, 'latest')).sort()).toEqual(names);
  else {
    expect((await target.list(keys.latestPrefix)).map((k) => k.slice(keys.latestPrefix.length))).toEqual(names);
    expect((await target.list(`${pointer.domain}/`)).map((k) => k.slice(pointer.domain.length + 1))).toEqual(names);
  }
}

describe.each(['fs', 's3'] as const)(
  'bug "first publish with an empty file fails": every fixture publishes a first and a second version (%s)',
  (kind) => {
    it.each([...FIXTURES, SHARED])(
      '$name',
      async ({ name, dir }) => {
        const dataDir = join(temp.dir, `data-${kind}-${name}`);
        const settings = resolveConfig({ env: { NODECTL_DATA_DIR: dataDir } }).settings;
        const controlDb = openControlDb(dataDirLayout(dataDir));
        const nodesRoot = join(dataDir, 'nodes');
        const target =
          kind === 'fs'
            ? createFsTarget({ root: nodesRoot })
            : await createS3Target({
                bucket: s3.bucket,
                prefix: `fx-${name}`,
                endpoint: s3.endpoint,
                forcePathStyle: true,
                accessKeyId: 'S3RVER',
                secretAccessKey: 'S3RVER',
              });
        try {
          let casBefore = 0;
          let siteHash = '';
          for (const [i, buildTime] of ['2026-03-02T09:00:00Z', '2026-03-03T09:00:00Z'].entries()) {
            // The second version: a later build of the same content, forced, so every compiled file is held and the patched ones are new.
            const result = await runPublish({
              settings,
              controlDb,
              target,
              source: { kind: 'fixture', dir },
              buildTime,
              force: i > 0,
            });
            siteHash = siteHashOf(result.websiteId);
            expect(result.alreadyLive).toBe(false);
            expect(result.previousVersion === null).toBe(i === 0);
            await expectLiveWholeAndClean(target, kind, siteHash, result, nodesRoot);
            // Honest accounting: one cas object per file marked uploaded; bytes are those files plus the manifest.
            const cas = (await target.list(`${siteKeys(siteHash).root}cas/`)).length;
            const uploaded = result.files.filter((f) => f.state === 'uploaded');
            expect(cas - casBefore, name).toBe(uploaded.length);
            expect(new Set(uploaded.map((f) => f.checksum)).size).toBe(uploaded.length);
            const manifestBytes = (await target.get(siteKeys(siteHash).pointer))!.length;
            expect(result.bytesUploaded).toBe(uploaded.reduce((s, f) => s + f.bytes, 0) + manifestBytes);
            expect(result.bytesCarried).toBe(
              result.files.filter((f) => f.state === 'carried').reduce((s, f) => s + f.bytes, 0),
            );
            casBefore = cas;
          }
          const checksums = (await pointerOf(target, siteHash)).files.map((f) => f.checksum);
          if (name === SHARED.name) expect(checksums.length - new Set(checksums).size).toBeGreaterThanOrEqual(5);
        } finally {
          await target.close();
          controlDb.close();
        }
      },
      60_000,
    );
  },
);

describe('nodectl publish <fixture> on a fresh data directory', () => {
  it.each(FIXTURES)(
    'bug "first publish with an empty file fails": nodectl publish fixtures/$name exits 0',
    async ({ name, dir }) => {
      const run = await runNodectlInProcess(['--json', 'publish', dir], { dataDir: join(temp.dir, `cli-${name}`) });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.json().versionUlid).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    },
    60_000,
  );
});
