import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/platform/config/config.js';
import { runPublish, siteHashOf, siteKeys, takeDownNode } from '../../../src/output/publish/index.js';
import { createFsTarget } from '../../../src/output/publish/targets/fs.js';
import { mirrorAlias } from '../../../src/output/publish/targets/public-alias.js';
import type { PublishTarget } from '../../../src/output/publish/targets/types.js';
import { openControlDb } from '../../../src/platform/storage/control.js';
import { dataDirLayout } from '../../../src/platform/storage/data-dir.js';
import type { Db } from '../../../src/platform/storage/sqlite.js';
import { makeTempDir, PROJECT_ROOT } from '../../helpers/paths.js';
import { SHOP, SHOP_DOMAIN, SHOP_WEBSITE } from './support.js';

/**
 * Lines of the publish core that ask which target they hold, or reach past PublishTarget:
 * `target.kind`, a comparison with 'fs' or 's3', a call of a `localPath` method.
 */
const TARGET_BRANCHES = [
  /\b\w*[tT]arget\w*\??\.kind\b/,
  /\bkind\s*[!=]==?\s*['"](fs|s3)['"]/,
  /['"](fs|s3)['"]\s*[!=]==?/,
  /\blocalPath\s*(\?\.)?\(/,
  /\.localPath\b/,
];

function findTargetBranches(files: ReadonlyArray<{ file: string; text: string }>): string[] {
  return files.flatMap(({ file, text }) =>
    text
      .split('\n')
      .flatMap((line, i) => (TARGET_BRANCHES.some((re) => re.test(line)) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
  );
}

/** Every .ts file of src/output/publish except src/output/publish/targets/, where the targets themselves live. */
function publishCore(): Array<{ file: string; text: string }> {
  const root = join(PROJECT_ROOT, 'src', 'output', 'publish');
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name))
    .filter((path) => !relative(root, path).startsWith('targets'))
    .map((path) => ({ file: relative(PROJECT_ROOT, path), text: readFileSync(path, 'utf8') }));
}

describe('the publish core never branches on the target kind (docs/publishing.md "Targets")', () => {
  it("regression: flip.ts, rollback.ts and purge-versions.ts branched on target.kind === 's3' and run-publish.ts, read-node.ts reached through target.localPath", () => {
    const files = publishCore();
    expect(files.map((f) => f.file)).toContain('src/output/publish/flip.ts');
    expect(findTargetBranches(files)).toEqual([]);
  });

  it('the check finds each shape it forbids, and not a source or message kind', () => {
    const shown = [
      "const alias = target.kind === 's3';",
      "if (options.target?.kind !== 'fs') x();",
      "if ('s3' === kind) x();",
      'const dir = target.localPath(key);',
      'if (target.localPath) read();',
      "if (source.kind === 'website') x();",
      "if (message.kind === 'renew') lock.renew();",
    ].map((text, i) => ({ file: `shown-${i}.ts`, text }));
    expect(findTargetBranches(shown).map((hit) => hit.split(':')[0])).toEqual([
      'shown-0.ts',
      'shown-1.ts',
      'shown-2.ts',
      'shown-3.ts',
      'shown-4.ts',
    ]);
  });
});

describe('the publisher follows what a target describes, not its name', () => {
  const temp = makeTempDir('nodectl-publish-seams-');
  const dataDir = join(temp.dir, 'data');
  const settings = resolveConfig({ env: { NODECTL_DATA_DIR: dataDir } }).settings;
  const keys = siteKeys(siteHashOf(SHOP_WEBSITE));
  let db: Db;
  let target: PublishTarget;
  beforeAll(() => {
    db = openControlDb(dataDirLayout(dataDir));
    // Local files, named 'fs', but with a CDN-style mirror as its public alias (what S3 does).
    const local = createFsTarget({ root: join(dataDir, 'nodes') });
    target = { ...local, publicAlias: (site) => mirrorAlias(local, site) };
  });
  afterAll(async () => {
    await target.close();
    db.close();
    temp.cleanup();
  });

  it('an fs-named target with a mirror alias gets a mirror of latest/ and no domain map; a takedown empties the mirror', async () => {
    const result = await runPublish({ settings, controlDb: db, target, source: { kind: 'fixture', dir: SHOP } });
    const names = ['manifest.json', ...result.files.map((f) => f.path)].sort();
    expect((await target.list(`${SHOP_DOMAIN}/`)).map((k) => k.slice(SHOP_DOMAIN.length + 1))).toEqual(names);
    expect((await target.get(`${SHOP_DOMAIN}/manifest.json`))!.equals((await target.get(keys.pointer))!)).toBe(true);
    expect(await target.list('domains/')).toEqual([]);

    await takeDownNode({ target, controlDb: db, websiteId: SHOP_WEBSITE, domain: SHOP_DOMAIN });
    expect(await target.list(`${SHOP_DOMAIN}/`)).toEqual([]);
    expect(await target.list(keys.latestPrefix)).toEqual([]);
    expect(await target.head(keys.tombstone)).toBeDefined();
  }, 60_000);
});
