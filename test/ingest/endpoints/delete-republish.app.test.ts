import { afterEach, describe, expect, it } from 'vitest';
import { contentIngestJob } from '../../../src/ingest/graph/content-ingest-job.js';
import { republishJob } from '../../../src/output/publish/republish-job.js';
import { listStoredVersions } from '../../../src/output/publish/store.js';
import { createDeleteHarness, KEYS, SITE_HASH, type DeleteHarness } from '../../output/publish/deletes-support.js';
import { pageItem } from './support.js';

const pages = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    pageItem(`page-${i}`, `Page ${i}: the unique kettle model Kx${i}y is made of copper.`, { title: `Kettle Kx${i}y` }),
  );

let h: DeleteHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function publishedHarness(): Promise<DeleteHarness> {
  h = await createDeleteHarness();
  await h.ingest(pages(10));
  await h.runJobs();
  await h.publish();
  return h;
}

const latestChunks = async (x: DeleteHarness) => (await x.target.get(KEYS.latest('chunks.en.jsonl')))!.toString();
const CONTENT_INGEST_JOB = contentIngestJob.kind;
const REPUBLISH_JOB = republishJob.kind;
const republishJobs = (x: DeleteHarness) => x.services.jobs.list({ kind: REPUBLISH_JOB });

describe('POST /v1/ingest/delete republishes the live node (coalesced)', () => {
  it('regression: a deleted item stayed live until someone published again; after the coalesced republish it is gone from latest/', async () => {
    const x = await publishedHarness();
    const before = await x.liveVersion();
    expect(await latestChunks(x)).toContain('Kx3y');
    const result = await x.remove(['page-3']);
    expect(result).toMatchObject({ tombstoned: ['page-3'], not_found: [] });
    const job = x.services.jobs.get(result.republish_job_id!);
    // Due at the end of the minute (the clock stands 10 s past it), not at once.
    expect(job).toMatchObject({ kind: REPUBLISH_JOB, state: 'queued', runAt: Date.parse('2026-03-02T10:01:00Z') });
    expect(job!.payload).toEqual({ website_id: x.website.id, removed: [{ type: 'page', id: 'page-3' }] });
    expect(await x.runJobs()).toBe(1); // the content.ingest removal; the republish is not due
    expect(await latestChunks(x)).toContain('Kx3y');
    x.advance(50_000);
    expect(await x.runJobs()).toBe(1);
    expect(x.services.jobs.get(job!.id)).toMatchObject({ state: 'succeeded', lastError: null });
    expect(await x.liveVersion()).not.toBe(before);
    const chunks = await latestChunks(x);
    expect(chunks).not.toContain('Kx3y');
    expect(chunks).toContain('Kx4y');
    // A plain delete purges nothing: the earlier version still holds the page.
    expect((await x.target.get(KEYS.version(before!, 'chunks.en.jsonl')))!.toString()).toContain('Kx3y');
    expect(await x.target.head(KEYS.version(before!, 'purged.json'))).toBeUndefined();
  });

  it('several deletes within the minute make one republish, run after every removal, and one new version', async () => {
    const x = await publishedHarness();
    const versionsBefore = (await listStoredVersions(x.target, SITE_HASH)).length;
    const ids = new Set<string | null>();
    for (const id of ['page-1', 'page-5', 'page-7']) {
      ids.add((await x.remove([id])).republish_job_id);
      x.advance(2_000);
    }
    expect(ids.size).toBe(1);
    const [job] = republishJobs(x);
    expect(job!.payload).toEqual({
      website_id: x.website.id,
      removed: ['page-1', 'page-5', 'page-7'].map((id) => ({ type: 'page', id })),
    });
    expect(x.services.jobs.list({ kind: CONTENT_INGEST_JOB, state: 'queued' })).toHaveLength(3);
    x.advance(60_000);
    expect(await x.runJobs()).toBe(4); // three content.ingest (earlier run_at), then the republish
    expect(republishJobs(x).map((j) => j.state)).toEqual(['succeeded']);
    expect(await listStoredVersions(x.target, SITE_HASH)).toHaveLength(versionsBefore + 1);
    const chunks = await latestChunks(x);
    for (const gone of ['Kx1y', 'Kx5y', 'Kx7y']) expect(chunks).not.toContain(gone);
  });

  it("a delete while the minute's republish is running goes to the next minute instead of being lost", async () => {
    const x = await publishedHarness();
    const first = (await x.remove(['page-2'])).republish_job_id!;
    x.advance(50_000);
    expect(x.services.jobs.claim('other-worker', [REPUBLISH_JOB])?.id).toBe(first);
    const second = (await x.remove(['page-6'])).republish_job_id!;
    expect(second).not.toBe(first);
    expect(x.services.jobs.get(second)).toMatchObject({
      state: 'queued',
      runAt: Date.parse('2026-03-02T10:02:00Z'),
      payload: { removed: [{ type: 'page', id: 'page-6' }] },
    });
  });

  it('a republish due before the content.ingest removal ran does not publish the deleted item again: it fails and is retried', async () => {
    const x = await publishedHarness();
    const before = await x.liveVersion();
    const job = x.services.jobs.get((await x.remove(['page-4'])).republish_job_id!)!;
    // The removal has not run (no jobs were run); a shut-down worker stops waiting for it at once.
    const stopped = new AbortController();
    stopped.abort();
    await expect(
      republishJob.handler(republishJob.payload.parse(job.payload), {
        job,
        services: x.services,
        signal: stopped.signal,
      }),
    ).rejects.toThrow(/page:page-4\) are still in the graph/);
    expect(await x.liveVersion()).toBe(before);
    x.advance(60_000);
    expect(await x.runJobs()).toBe(2);
    expect(await latestChunks(x)).not.toContain('Kx4y');
  });

  it('without a published node a delete enqueues no republish: republish_job_id is the graph rebuild', async () => {
    h = await createDeleteHarness();
    await h.ingest(pages(2));
    await h.runJobs();
    const result = await h.remove(['page-0', 'page-missing']);
    expect(result).toMatchObject({ tombstoned: ['page-0'], not_found: ['page-missing'] });
    expect(h.services.jobs.get(result.republish_job_id!)?.kind).toBe(CONTENT_INGEST_JOB);
    expect(republishJobs(h)).toEqual([]);
    expect(await h.remove(['page-missing'])).toEqual({
      tombstoned: [],
      not_found: ['page-missing'],
      republish_job_id: null,
    });
  });
});
