import { existsSync } from 'node:fs';
import { setImmediate as yieldTurn } from 'node:timers/promises';
import { z } from 'zod';
import type { AppServices } from '../../platform/app/index.js';
import { defineJob } from '../../platform/job-runtime/index.js';
import { addUsage, graphDbPath } from '../../platform/storage/index.js';
import { embeddingsWebsite } from './eligibility.js';
import { loadVectorExtension, vectorExtensionFailure } from './extension.js';
import { embedTexts, EmbeddingProviderError } from './provider.js';
import { embeddingsSettingsOf, modelKeyOf } from './settings.js';
import { dropOrphanVectors, pendingChunks, writeVectors } from './store.js';

/**
 * Attempts of one embeddings.compute job: with the queue's backoff (doubling, at most 10 min) a
 * provider may be down for about two and a half hours before the job is dead-lettered. Nothing is
 * lost then either: the next ingest's job embeds whatever still lacks a vector.
 */
export const EMBEDDINGS_MAX_ATTEMPTS = 20;

const embeddingsPayload = z.object({ website_id: z.string().min(1) });

/**
 * Embeds a website's chunks whose text changed since they were embedded (or that have none), in
 * batches of embeddingsBatchSize, after content.ingest (docs/knowledge.md "Modes"). Its own lane:
 * a slow or failing provider never holds up ingest or publish. A provider error fails the attempt
 * (retried with backoff); the batches stored before it stay.
 */
export const embeddingsComputeJob = defineJob({
  kind: 'embeddings.compute',
  lane: 'embeddings',
  payload: embeddingsPayload,
  handler: async (payload, { services, signal }) => {
    await computeEmbeddings(services, payload.website_id, signal);
  },
});

let extensionLogged = false;

/** Runs one website's embedding pass; returns the chunks embedded. */
export async function computeEmbeddings(
  services: AppServices,
  websiteId: string,
  signal?: AbortSignal,
): Promise<number> {
  const settings = embeddingsSettingsOf(services.config.settings);
  if (!settings) return 0;
  const website = embeddingsWebsite(services.controlDb, websiteId);
  if (!website || !existsSync(graphDbPath(services.layout, websiteId))) return 0;
  const db = services.graphs.get(websiteId);
  if (!loadVectorExtension(db)) {
    if (!extensionLogged)
      services.logger.warn(
        { reason: vectorExtensionFailure() },
        'sqlite-vec could not load: embeddings are off on this machine, knowledge search stays keyword only',
      );
    extensionLogged = true;
    return 0;
  }
  const modelKey = modelKeyOf(settings);
  dropOrphanVectors(db);
  let embedded = 0;
  // Passes in rowid order until one finds nothing: a chunk re-ingested (a new rowid) behind the
  // pass is found by the next. Between reads the event loop gets a turn: hashing every chunk of a
  // large website at once would hold up requests.
  for (let after = 0, found = false; ;) {
    if (signal?.aborted) throw new Error('the worker stopped; the job runs again');
    const { chunks: batch, last } = pendingChunks(db, modelKey, settings.batchSize, after);
    if (last === undefined) {
      if (!found) return embedded;
      after = 0;
      found = false;
      continue;
    }
    after = last;
    if (batch.length === 0) {
      await yieldTurn();
      continue;
    }
    found = true;
    let answer;
    try {
      answer = await embedTexts(
        settings,
        batch.map((chunk) => chunk.text),
        signal,
      );
    } catch (error) {
      if (error instanceof EmbeddingProviderError) services.metrics.embeddingRequests.inc({ outcome: 'error' });
      throw error;
    }
    services.metrics.embeddingRequests.inc({ outcome: 'ok' });
    writeVectors(
      db,
      modelKey,
      batch.map((chunk, i) => ({ chunk, vector: answer.vectors[i]! })),
    );
    embedded += batch.length;
    services.metrics.embeddedChunks.inc(batch.length);
    addUsage(services.controlDb, website.organizationId, 'embedded_chunks', batch.length, services.now());
  }
}

/**
 * Queues the website's embedding pass when embeddings are on and its plan allows them; one job
 * per website at a time (a queued one already covers every chunk).
 */
export function enqueueEmbeddings(services: AppServices, websiteId: string): void {
  if (!embeddingsSettingsOf(services.config.settings)) return;
  if (!embeddingsWebsite(services.controlDb, websiteId)) return;
  services.jobs.enqueue(
    embeddingsComputeJob,
    { website_id: websiteId },
    { dedupeKey: `embeddings.compute:${websiteId}`, maxAttempts: EMBEDDINGS_MAX_ATTEMPTS },
  );
}
