import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import type { AppServices, RepublishRequest } from '../../platform/app/index.js';
import { defineJob, type JobContext } from '../../platform/job-runtime/index.js';
import { sameId, type Db } from '../../platform/storage/index.js';
import type { Job } from '../../platform/jobs/index.js';

/** Deletes of one website within one minute (UTC minute) make one republish, run at its end. */
export const REPUBLISH_COALESCE_MS = 60_000;
/** How long a republish waits for the content.ingest job that removes its items, before it retries. */
const REMOVAL_WAIT_MS = 15_000;

const ItemRefSchema = z.object({ type: z.string().min(1), id: z.string().min(1) });
const RepublishPayloadSchema = z.object({
  website_id: z.string().min(1),
  /** Items whose removal from the graph must have run before the compile. */
  removed: z.array(ItemRefSchema),
  /** Present when any of the deletes was a gdpr_erasure: what to purge from earlier versions. */
  erasure: z
    .object({ item_keys: z.array(z.string()), source_ids: z.array(z.string()), record_ids: z.array(z.string()) })
    .optional(),
});
export type RepublishPayload = z.infer<typeof RepublishPayloadSchema>;
// The request the other planes make (services.nodes) is this payload.
RepublishPayloadSchema satisfies z.ZodType<RepublishRequest>;

/** Republishes a website after deletes (docs/ingest.md "Deleting items"); enqueued by requestRepublish. */
export const republishJob = defineJob({
  kind: 'node.republish',
  lane: 'publish',
  payload: RepublishPayloadSchema,
  handler: (payload, context) => republish(payload, context),
});

/**
 * Enqueues the website's republish, or adds to the one already queued for this minute (its
 * payload gathers every removed item and erasure). The job runs at the end of the minute, after
 * the content.ingest jobs of those deletes (due at once). A job already running is never joined:
 * it may have compiled before this delete's removal ran, so the request goes to the next minute.
 */
export function requestRepublish(services: Pick<AppServices, 'jobs' | 'now'>, addition: RepublishPayload): Job {
  for (let bucket = Math.floor(services.now() / REPUBLISH_COALESCE_MS); ; bucket++) {
    const job = services.jobs.enqueue(republishJob, addition, {
      dedupeKey: `${republishJob.kind}:${addition.website_id}:${bucket}`,
      runAt: (bucket + 1) * REPUBLISH_COALESCE_MS,
      merge: (queued) => mergePayloads(queued, addition),
    });
    if (job.state === 'queued') return job;
  }
}

function mergePayloads(a: RepublishPayload, b: RepublishPayload): RepublishPayload {
  const union = (x: readonly string[], y: readonly string[]) => [...new Set([...x, ...y])].sort();
  const removed = new Map([...a.removed, ...b.removed].map((r) => [`${r.type}:${r.id}`, r]));
  const merged: RepublishPayload = {
    website_id: a.website_id,
    removed: [...removed.keys()].sort().map((k) => removed.get(k)!),
  };
  if (a.erasure || b.erasure) {
    const e = (p: RepublishPayload) => p.erasure ?? { item_keys: [], source_ids: [], record_ids: [] };
    merged.erasure = {
      item_keys: union(e(a).item_keys, e(b).item_keys),
      source_ids: union(e(a).source_ids, e(b).source_ids),
      record_ids: union(e(a).record_ids, e(b).record_ids),
    };
  }
  return merged;
}

/**
 * Whether a delete has something published to change: a live version, a publish running now
 * (its flip will make the deleted items live), or, for an erasure, versions kept after a takedown.
 * A store that cannot be read counts as published: the job checks again when it runs.
 */
export async function hasPublishedNode(
  services: Pick<AppServices, 'controlDb' | 'config' | 'logger' | 'now'>,
  websiteId: string,
  erase: boolean,
): Promise<boolean> {
  if (
    services.controlDb
      .prepare('SELECT 1 FROM publish_locks WHERE website_id = ? AND expires_at > ?')
      .get(websiteId, services.now())
  )
    return true;
  try {
    const [{ createTargetFromSettings }, { siteHashOf, siteKeys }] = await Promise.all([
      import('./targets/index.js'),
      import('./layout.js'),
    ]);
    const keys = siteKeys(siteHashOf(websiteId));
    const target = await createTargetFromSettings(services.config.settings);
    try {
      return (
        (await target.head(keys.pointer)) !== undefined || (erase && (await target.head(keys.tombstone)) !== undefined)
      );
    } finally {
      await target.close();
    }
  } catch (error) {
    services.logger.warn(
      { err: error, websiteId },
      'the publish target could not be read; the delete enqueues a republish anyway',
    );
    return true;
  }
}

/**
 * Runs one node.republish: waits until the deleted items are out of the graph, then (erasure)
 * marks the versions that hold their records, publishes the graph (in a worker thread) when a
 * version is live (an erasure may drop any share of records: the drop gate is off for it, and
 * so is the publishes-per-day quota: erased content must leave the live version), and
 * (erasure) purges the marked versions. A website deleted since is a no-op.
 */
async function republish(payload: RepublishPayload, { services, signal }: JobContext): Promise<void> {
  const { loadWebsiteInfo } = await import('../../control/records/index.js');
  const site = loadWebsiteInfo(services.controlDb, payload.website_id);
  if (!site) return;
  const graph = services.graphs.get(site.websiteId);
  await waitForRemovals(graph, payload.removed, signal);
  const [
    { createTargetFromSettings },
    { runPublishInWorker },
    { countRejections },
    purge,
    { readLiveManifest },
    { siteHashOf },
  ] = await Promise.all([
    import('./targets/index.js'),
    import('./publish-in-worker.js'),
    import('./publish-rejections.js'),
    import('./purge-versions.js'),
    import('./store.js'),
    import('./layout.js'),
  ]);
  const target = await createTargetFromSettings(services.config.settings);
  try {
    const spec = payload.erasure && {
      itemKeys: payload.erasure.item_keys,
      sourceIds: payload.erasure.source_ids,
      recordIds: payload.erasure.record_ids,
    };
    const inGraph = createRecordLookup(graph);
    if (spec)
      await purge.markVersionsPurged(
        target,
        site.websiteId,
        await purge.findVersionsToPurge(target, site.websiteId, spec, inGraph),
        services.now,
      );
    const live = await readLiveManifest(target, siteHashOf(site.websiteId));
    if (live) {
      // In a worker thread, like the HTTP route: a large compile must not stall the daemon's event loop.
      const result = await runPublishInWorker({
        settings: services.config.settings,
        controlDb: services.controlDb,
        source: { kind: 'website', websiteId: site.websiteId },
        allowDrop: spec !== undefined,
        quotaExempt: spec !== undefined,
        now: services.now,
        signal,
      });
      countRejections(services.metrics, result.rejected);
      services.logger.info(
        {
          websiteId: site.websiteId,
          version: result.versionUlid,
          alreadyLive: result.alreadyLive,
          removed: payload.removed.length,
        },
        'node republished after deletes',
      );
    }
    if (spec) {
      const report = await purge.purgeErasedContent({
        target,
        controlDb: services.controlDb,
        websiteId: site.websiteId,
        domain: live?.domain ?? site.domain,
        spec,
        inGraph,
        now: services.now,
      });
      services.logger.info({ websiteId: site.websiteId, ...report }, 'erased items purged from earlier versions');
      // The content.ingest job's WAL truncate may have met this job's compile reading the graph
      // and left the WAL (which held the erased rows) in place: truncate it now that reads are done.
      graph.pragma('wal_checkpoint(TRUNCATE)');
    }
  } finally {
    await target.close();
  }
}

/** Waits (bounded) until no removed item still contributes to the graph; throws to retry later. */
async function waitForRemovals(graph: Db, removed: RepublishPayload['removed'], signal: AbortSignal): Promise<void> {
  const contributes = graph.prepare('SELECT 1 FROM item_contributions WHERE item_key = ?');
  const deadline = Date.now() + REMOVAL_WAIT_MS;
  for (;;) {
    const pending = removed.filter((r) => contributes.get(`${r.type}:${r.id}`) !== undefined);
    if (pending.length === 0) return;
    if (Date.now() >= deadline || signal.aborted) {
      throw new Error(
        `${pending.length} deleted item(s) (${pending
          .slice(0, 3)
          .map((r) => `${r.type}:${r.id}`)
          .join(', ')}) are still in the graph: their content.ingest job has not run; the republish retries`,
      );
    }
    await sleep(100);
  }
}

/** Whether the graph still holds a record id (by its prefix's table). */
function createRecordLookup(graph: Db): (recordId: string) => boolean {
  const tables: Record<string, string> = {
    entity: 'entities WHERE id = @id',
    fact: `fact_candidates WHERE ${sameId('fact_id', '@id')}`,
    rel: 'relationships WHERE id = @id',
    chunk: 'chunks WHERE id = @id',
    qa: 'qa WHERE id = @id',
    src: 'sources WHERE id = @id',
  };
  const statements = new Map(
    Object.entries(tables).map(([prefix, from]) => [prefix, graph.prepare(`SELECT 1 FROM ${from} LIMIT 1`)]),
  );
  return (id) => statements.get(id.slice(0, id.indexOf('_')))?.get({ id }) !== undefined;
}
