import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/daemon/app.js';
import { graphDbPath } from '../../../src/platform/storage/data-dir.js';
import { VersionsSchema } from '../../../src/platform/node-format/index.js';
import { createS3Target } from '../../../src/output/publish/targets/s3.js';
import { rollbackNode } from '../../../src/output/publish/rollback.js';
import type { AppError } from '../../../src/platform/errors/app-error.js';
import { pageItem } from '../../ingest/endpoints/support.js';
import { createDeleteHarness, DOMAIN, filesContaining, KEYS, type DeleteHarness } from './deletes-support.js';
import { startLocalS3, type LocalS3 } from './s3-server.js';

const MARKER = 'Qzvx-erasure-marker-7f3a9c';

/** Eight ordinary pages and one page about a person whose text and title carry MARKER. */
function pages(): Array<Record<string, unknown>> {
  const items = Array.from({ length: 8 }, (_, i) =>
    pageItem(
      `page-${i}`,
      `Page ${i} of the example shop. We sell kettle model K${i} in steel and copper, shipped from Hamburg.`,
      { title: `Kettle K${i}` },
    ),
  );
  items.push(
    pageItem('person-1', `Mallory Example writes for the shop. Contact: ${MARKER}. She reviews every kettle we sell.`, {
      title: `Mallory Example ${MARKER}`,
    }),
  );
  return items;
}

/** Ingests the pages, publishes twice (a page changed in between): two versions hold MARKER. */
async function publishTwoVersionsWithMarker(h: DeleteHarness): Promise<string[]> {
  await h.ingest(pages());
  await h.runJobs();
  const v1 = await h.publish();
  h.advance(5_000);
  await h.ingest([pageItem('page-extra', 'A new page about copper kettles from Lübeck.', { title: 'Copper kettles' })]);
  await h.runJobs();
  const v2 = await h.publish();
  expect(v2.versionUlid).not.toBe(v1.versionUlid);
  return [v1.versionUlid, v2.versionUlid];
}

/** Erases person-1 and runs its jobs: content.ingest now, the republish at the end of the minute. */
async function erase(h: DeleteHarness): Promise<string> {
  h.advance(5_000);
  const result = await h.remove(['person-1'], 'gdpr_erasure');
  expect(result.tombstoned).toEqual(['person-1']);
  const job = h.services.jobs.get(result.republish_job_id!);
  expect(job).toMatchObject({ kind: 'node.republish', state: 'queued', runAt: Date.parse('2026-03-02T10:01:00Z') });
  await h.runJobs(); // content.ingest only: the republish is not due yet
  expect(h.services.jobs.get(job!.id)?.state).toBe('queued');
  h.advance(60_000);
  expect(await h.runJobs()).toBe(1);
  expect(h.services.jobs.get(job!.id)).toMatchObject({ state: 'succeeded', lastError: null });
  return job!.id;
}

describe('gdpr_erasure purges the published store (fs target)', () => {
  let h: DeleteHarness;
  let versions: string[];
  beforeAll(async () => {
    h = await createDeleteHarness();
    versions = await publishTwoVersionsWithMarker(h);
  }, 60_000);
  afterAll(async () => h?.close());

  it('regression: an erased item stayed in every published version; afterwards no file of the store, nor the graph database, holds its text', async () => {
    expect(filesContaining(h.services.layout.nodesDir, MARKER).length).toBeGreaterThan(4);
    expect(filesContaining(h.services.layout.graphsDir, MARKER).length).toBeGreaterThan(0);
    await erase(h);
    const live = (await h.liveVersion())!;
    expect(versions).not.toContain(live);
    expect(filesContaining(h.services.layout.nodesDir, MARKER)).toEqual([]);
    // The graph database (erased, then VACUUMed) and everything else in the data directory.
    expect(existsSync(graphDbPath(h.services.layout, h.website.id))).toBe(true);
    expect(filesContaining(h.services.layout.graphsDir, MARKER)).toEqual([]);
    expect(filesContaining(h.dataDir, MARKER)).toEqual([]);
    // The live version is whole: every file its manifest names is there with its size.
    const manifest = JSON.parse((await h.target.get(KEYS.pointer))!.toString()) as {
      files: Array<{ path: string; bytes: number }>;
    };
    for (const f of manifest.files)
      expect((await h.target.head(KEYS.version(live, f.path)))?.bytes, f.path).toBe(f.bytes);
  });

  it('versions.json of the live version marks both earlier versions purged', async () => {
    const live = (await h.liveVersion())!;
    const doc = VersionsSchema.parse(JSON.parse((await h.target.get(KEYS.version(live, 'versions.json')))!.toString()));
    expect(doc.current.purged).toBeUndefined();
    expect(
      doc.history
        .filter((v) => v.purged)
        .map((v) => v.node_version)
        .sort(),
    ).toEqual([...versions].sort());
  });

  it('a purged file answers 410 node.gone through the daemon; the files that held nothing of the item still serve', async () => {
    const marker = JSON.parse((await h.target.get(KEYS.version(versions[0]!, 'purged.json')))!.toString()) as {
      files: string[];
    };
    expect(marker.files).toEqual(
      expect.arrayContaining([expect.stringMatching(/^chunks\.en\.jsonl$/), 'sources.jsonl']),
    );
    const app = await buildApp(h.services);
    try {
      for (const file of marker.files) {
        const res = await app.inject({ method: 'GET', url: `/nodes/${DOMAIN}/versions/${versions[0]}/${file}` });
        expect(res.statusCode, file).toBe(410);
        expect(res.json()).toMatchObject({ ok: false, error: { code: 'node.gone', retryable: false } });
      }
      const kept = await app.inject({ method: 'GET', url: `/nodes/${DOMAIN}/versions/${versions[0]}/ai.json` });
      expect(kept.statusCode).toBe(200);
      const latest = await app.inject({ method: 'GET', url: `/nodes/${DOMAIN}/chunks.en.jsonl` });
      expect(latest.statusCode).toBe(200);
      expect(latest.body).toContain('kettle model K3');
      expect(latest.body).not.toContain('Mallory');
    } finally {
      await app.close();
    }
  });

  it('bug "a rollback to a purged version fails at verify with a misleading publish.atomic_conflict": it is 409 publish.version_purged naming the purged files, and the live version stays', async () => {
    const live = (await h.liveVersion())!;
    const marker = JSON.parse((await h.target.get(KEYS.version(versions[0]!, 'purged.json')))!.toString()) as {
      files: string[];
    };
    const refused = await rollbackNode({
      target: h.target,
      controlDb: h.services.controlDb,
      websiteId: h.website.id,
      to: versions[0]!,
    }).then(
      () => undefined,
      (e: AppError) => e,
    );
    expect(refused).toMatchObject({
      code: 'publish.version_purged',
      status: 409,
      retryable: false,
      details: { version: versions[0], files: marker.files },
    });
    expect(refused!.message).toContain(marker.files[0]!);
    expect(refused!.message).toMatch(/cannot be served again/);
    expect(await h.liveVersion()).toBe(live);
  });
});

describe('gdpr_erasure purges the published store (S3 target, s3rver)', () => {
  let s3: LocalS3;
  let h: DeleteHarness | undefined;
  let versions: string[] = [];
  beforeAll(async () => {
    s3 = await startLocalS3('erasure');
  });
  afterAll(async () => {
    await h?.close();
    await s3?.stop();
  });

  it('regression: an erased item stayed in every object of the bucket; afterwards no object holds its text', async () => {
    h = await createDeleteHarness({ ...s3.env, NODECTL_PUBLISH_TARGET: 's3' });
    versions = await publishTwoVersionsWithMarker(h);
    const bucket = await createS3Target({
      bucket: s3.bucket,
      endpoint: s3.endpoint,
      forcePathStyle: true,
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
    });
    try {
      const holding = async () => {
        const hits: string[] = [];
        for (const key of await bucket.list('')) if ((await bucket.get(key))!.includes(MARKER)) hits.push(key);
        return hits;
      };
      const before = await holding();
      expect(before.some((k) => k.startsWith(`${DOMAIN}/`))).toBe(true); // the public alias
      expect(before.some((k) => k.includes('/cas/'))).toBe(true);
      await erase(h);
      expect(await holding()).toEqual([]);
      expect(filesContaining(h.dataDir, MARKER)).toEqual([]);
      for (const v of versions) expect(await bucket.head(KEYS.version(v, 'purged.json'))).toBeDefined();
    } finally {
      await bucket.close();
    }
  }, 60_000);

  it('bug "a rollback to a purged version fails at verify with a misleading publish.atomic_conflict": on S3 too it is 409 publish.version_purged, and the live version stays', async () => {
    const live = await h!.liveVersion();
    expect(versions.length).toBe(2);
    for (const v of versions) {
      const refused = await rollbackNode({
        target: h!.target,
        controlDb: h!.services.controlDb,
        websiteId: h!.website.id,
        to: v,
      }).then(
        () => undefined,
        (e: AppError) => e,
      );
      expect(refused, v).toMatchObject({
        code: 'publish.version_purged',
        details: { version: v, files: expect.arrayContaining(['sources.jsonl']) },
      });
    }
    expect(await h!.liveVersion()).toBe(live);
  });
});
