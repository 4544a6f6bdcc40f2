import { createHash } from 'node:crypto';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatValidationReport, validateNode } from '../../../src/compiler/index.js';
import { resolveConfig } from '../../../src/platform/config/config.js';
import {
  publishNode,
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
import { makeTempDir } from '../../helpers/paths.js';
import { SHOP, SHOP_DOMAIN, SHOP_GOLDEN, SHOP_WEBSITE } from './support.js';
import { appErrorFrom } from '../../helpers/app-error.js';

/**
 * Versions published before schema.jsonld had absolute @ids (issue 37; docs/decisions.md): the
 * older compiler wrote each @id as the bare record id. Such a version stays servable (rollback)
 * and valid with a warning (nodectl validate); a new version may not be in that form.
 */

const temp = makeTempDir('nodectl-legacy-ids-');
const dataDir = join(temp.dir, 'data');
const keys = siteKeys(siteHashOf(SHOP_WEBSITE));
/** Earlier than the golden shop's node_version, as a version published before the change would be. */
const OLD_VERSION = '01KJP0000000000000000XR7D1';
let db: Db;
let target: PublishTarget;

/**
 * golden/shop as the compiler wrote it before absolute ids: every `https://<domain>/#` prefix
 * of schema.jsonld removed (byte for byte the golden file before commit 078e364), the manifest
 * entry and node_version to match.
 */
function legacyCopy(to: string, nodeVersion: string, change: (text: string) => string = (t) => t): string {
  cpSync(SHOP_GOLDEN, to, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(to, 'manifest.json'), 'utf8'));
  const rewrite = (path: string, edit: (text: string) => string) => {
    const body = Buffer.from(edit(readFileSync(join(to, path), 'utf8')));
    writeFileSync(join(to, path), body);
    const entry = manifest.files.find((f: { path: string }) => f.path === path);
    Object.assign(entry, { checksum: `sha256:${createHash('sha256').update(body).digest('hex')}`, bytes: body.length });
  };
  rewrite('schema.jsonld', (text) => change(text.replaceAll(`"https://${SHOP_DOMAIN}/#`, '"')));
  rewrite('versions.json', (text) => text.replaceAll(manifest.node_version, nodeVersion));
  manifest.node_version = nodeVersion;
  writeFileSync(join(to, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  return to;
}

const pointerVersion = async () => JSON.parse((await target.get(keys.pointer))!.toString('utf8')).node_version;

beforeAll(() => {
  db = openControlDb(dataDirLayout(dataDir));
  target = createFsTarget({ root: join(dataDir, 'nodes') });
});
afterAll(async () => {
  await target.close();
  db.close();
  temp.cleanup();
});

describe('a node with relative schema.jsonld @ids, as nodectl wrote them before absolute IRIs', () => {
  it('is valid with a warning naming the file and saying to republish; for a new version it is an error', async () => {
    const old = legacyCopy(join(temp.dir, 'old-validate'), OLD_VERSION);
    expect(readFileSync(join(old, 'schema.jsonld'), 'utf8')).toContain('"@id": "entity_');

    const report = await validateNode(old);
    expect(report.errors).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.warnings).toEqual([
      expect.objectContaining({ code: 'schema.relative_ids', severity: 'warning', file: 'schema.jsonld' }),
    ]);
    expect(report.warnings[0]!.message).toMatch(
      /relative @ids.*stays valid.*republish.*https:\/\/www\.kaffeewerk\.example\/#<id>/,
    );
    expect(formatValidationReport(report)).toMatch(
      /^valid: [\s\S]*\[schema\.relative_ids\] schema\.jsonld has relative @ids/,
    );

    const strict = await validateNode(old, { forNewVersion: true });
    expect(strict.ok).toBe(false);
    expect(strict.errors).toEqual([
      expect.objectContaining({ code: 'schema.relative_ids', severity: 'error', file: 'schema.jsonld' }),
    ]);
    expect(strict.errors[0]!.message).toMatch(/compile the node again.*nodectl rollback/);
  });

  it('the relative form is still checked: an id that resolves to no record is ref.dangling, mixed forms fail the schema', async () => {
    const dangling = legacyCopy(join(temp.dir, 'old-dangling'), OLD_VERSION, (text) =>
      text.replace(/"@id": "entity_[0-9a-f]+"/, '"@id": "entity_ffffffffffffffffffffffff"'),
    );
    const report = await validateNode(dangling);
    expect(report.ok).toBe(false);
    expect(report.errors.map((e) => e.code)).toEqual(['ref.dangling']);

    const mixed = legacyCopy(join(temp.dir, 'old-mixed'), OLD_VERSION, (text) =>
      text.replace(/"@id": "(entity_[0-9a-f]+)"/, `"@id": "https://${SHOP_DOMAIN}/#$1"`),
    );
    const mixedReport = await validateNode(mixed);
    expect(mixedReport.ok).toBe(false);
    expect(mixedReport.counts['schema.invalid']).toBeGreaterThan(0);
    expect(mixedReport.counts['schema.relative_ids']).toBeUndefined();
  });
});

describe('a version published so by an older nodectl', () => {
  it('is republished over by a compile, is refused as a new version, and a rollback serves it again as it was', async () => {
    const old = legacyCopy(join(temp.dir, 'old-published'), OLD_VERSION);
    // The older nodectl's publish: its validator took the relative ids (the lenient report stands for it).
    const published = await publishNode({
      target,
      nodeDir: old,
      websiteId: SHOP_WEBSITE,
      controlDb: db,
      nodeBaseUrl: 'http://127.0.0.1:8787/nodes',
      maxDrop: 0.5,
      writtenReport: await validateNode(old),
    });
    expect(published.versionUlid).toBe(OLD_VERSION);

    // The daemon's publish now: it compiles against the old live version (carrying its files) and publishes.
    const settings = resolveConfig({ env: { NODECTL_DATA_DIR: dataDir } }).settings;
    const current = await runPublish({ settings, controlDb: db, target, source: { kind: 'fixture', dir: SHOP } });
    expect(current.previousVersion).toBe(OLD_VERSION);
    expect(await pointerVersion()).toBe(current.versionUlid);
    expect((await target.get(keys.latest('schema.jsonld')))!.toString('utf8')).toContain(
      `"@id": "https://${SHOP_DOMAIN}/#entity_`,
    );

    // publish --node of a folder an older nodectl compiled: a new version, so refused, saying what to do.
    const refused = await appErrorFrom(
      publishNode({
        target,
        nodeDir: legacyCopy(join(temp.dir, 'old-again'), '01KJPZZZZZZZZZZZZZZZZZZZZZ'),
        websiteId: SHOP_WEBSITE,
        controlDb: db,
        nodeBaseUrl: 'http://127.0.0.1:8787/nodes',
        maxDrop: 0.5,
      }),
    );
    expect(refused.code).toBe('publish.validation_failed');
    expect(refused.message).toMatch(
      /\[schema\.relative_ids\] schema\.jsonld: has relative @ids.*compile the node again/,
    );
    expect(await pointerVersion()).toBe(current.versionUlid);

    // Rollback serves the old version byte for byte.
    const back = await rollbackNode({ target, controlDb: db, websiteId: SHOP_WEBSITE, to: OLD_VERSION });
    expect(back.versionUlid).toBe(OLD_VERSION);
    expect(await pointerVersion()).toBe(OLD_VERSION);
    expect((await target.get(keys.latest('schema.jsonld')))!.equals(readFileSync(join(old, 'schema.jsonld')))).toBe(
      true,
    );
    // And the stored version, as validate reads it, is valid with the warning.
    const stored = await validateNode(join(dataDir, 'nodes', keys.version(OLD_VERSION, '')));
    expect({ ok: stored.ok, warnings: stored.warnings.map((w) => w.code) }).toEqual({
      ok: true,
      warnings: ['schema.relative_ids'],
    });
  });
});
