import { AppError } from '../../platform/errors/index.js';
import type { AppServices } from '../../platform/app/index.js';
import { addUsage, commitWithoutSync, syncCommits } from '../../platform/storage/index.js';
import type { IngestItem, BatchResult, ItemResult } from '../../platform/contract/index.js';
import { contentIngestJob, unchangedInboxOutcomes, writeInboxItems, type WriteOutcome } from '../graph/index.js';
import { limitReachedError, readQuota, type Quota } from '../../control/plans/index.js';
import { addWebsiteEvent, METRICS } from '../../control/analytics/index.js';
import { checkItem } from './validate-item.js';
import { appendJournal } from '../handover/index.js';
import { tenureOf } from './tenure.js';
import type { IdleCheckpointer } from './wal-checkpoint.js';
import type { IngestWebsite } from './website-context.js';

export interface AcceptInput {
  services: Pick<AppServices, 'controlDb' | 'graphs' | 'jobs' | 'metrics' | 'logger' | 'now' | 'ownership'>;
  website: IngestWebsite;
  connectorId: string;
  rawItems: readonly unknown[];
  /** false: one invalid item rejects the whole request (422 ingest.batch_rejected), nothing stored. */
  partial: boolean;
  endpoint: 'batch' | 'item';
  /** Defers the graph database's WAL checkpoint until ingestion is idle. */
  checkpointer?: IdleCheckpointer;
}

/** Appends the items `written` accepted to the website's ingest journal (fenced by the lease token `tenure`). */
function journalAccepted(
  services: Pick<AppServices, 'controlDb'>,
  website: IngestWebsite,
  tenure: number,
  nowMs: number,
  connectorId: string,
  receivedAt: string,
  written: readonly WriteOutcome[],
  valid: readonly IngestItem[],
  validRaw: readonly unknown[],
): void {
  const items = written.flatMap((o, i) =>
    o.status === 'accepted' ? [{ item: valid[i]!, raw: JSON.stringify(validRaw[i]) }] : [],
  );
  if (items.length === 0) return;
  appendJournal(services.controlDb, {
    websiteId: website.id,
    token: tenure,
    nowMs,
    entry: { kind: 'items', connectorId, receivedAt, defaultLanguage: website.defaultLanguage, items },
  });
}

/**
 * Validates items, writes the valid ones into the website's inbox in one transaction (none when a
 * read finds them all unchanged or tombstoned), enqueues ONE content.ingest job for everything
 * accepted, and returns the per-item outcomes in request order once the inbox rows, the usage
 * counter and the job are on disk. The inbox is a database file of its own (src/ingest/graph/inbox.ts),
 * so the answer never waits for the graph writer thread; the job moves the rows into the graph.
 * Each write is committed without an fsync and the files are then synced at once
 * (src/platform/storage/durable-commit.ts): the event loop is never blocked on the disk. If the
 * enqueue fails the rows stay in the inbox and the sweep enqueues them (sweep.ts); if power is
 * lost before the syncs end, nothing was acknowledged, and a job whose rows were lost finds
 * nothing to move or process, so nothing accepted is lost.
 *
 * The plan's monthly item quota is applied per item (docs/contract.md#plans): once it is used
 * up, an item that would be accepted is an error entitlement.limit_reached instead (a skipped
 * one stays skipped); with partial false that rejects the whole request. The quota is read, the
 * rows written and the organization's items_ingested counter (which heartbeat reads) raised in
 * one synchronous step, so concurrent requests of this process cannot both take the last items.
 */
export async function acceptItems(input: AcceptInput): Promise<BatchResult> {
  const { services, website } = input;
  const checks = input.rawItems.map((raw) => checkItem(raw, website.hosts));
  if (!input.partial) {
    const invalid = checks.flatMap((c, index) => (c.ok ? [] : [{ index, id: c.id, code: c.code, message: c.message }]));
    if (invalid.length > 0) {
      throw new AppError(
        'ingest.batch_rejected',
        `${invalid.length} of ${checks.length} items are invalid and partial is false, so nothing was stored; fix the items in details.items and resend.`,
        { details: { items: invalid } },
      );
    }
  }
  const valid: IngestItem[] = [];
  const validRaw: unknown[] = [];
  for (let i = 0; i < checks.length; i++) {
    const c = checks[i]!;
    if (c.ok) (valid.push(c.item), validRaw.push(input.rawItems[i]));
  }
  const nowMs = services.now();
  const graphDb = services.graphs.get(website.id);
  const inbox = services.graphs.inbox(website.id);
  // Items all unchanged (a connector's re-push): known from a read, with nothing written.
  const unchanged = valid.length === 0 ? [] : unchangedInboxOutcomes(graphDb, inbox, valid);
  if (unchanged === null) input.checkpointer?.willWrite(inbox);
  let quota: Quota = { limit: Infinity, used: 0 };
  const tenure = tenureOf(services, website.id);
  const write = () => {
    quota = readQuota(services.controlDb, website.organizationId, 'items', nowMs);
    const receivedAt = new Date(nowMs).toISOString();
    const written = writeInboxItems(
      graphDb,
      inbox,
      valid,
      (i) => JSON.stringify(validRaw[i]),
      {
        connectorId: input.connectorId,
        defaultLanguage: website.defaultLanguage,
        receivedAt,
        acceptAtMost: Math.max(0, quota.limit - quota.used),
      },
      (out) => {
        if (!input.partial && out.some((o) => o.status === 'over_limit'))
          throw overLimitBatch(checks, out, website.plan, quota);
        // With several daemons, what this one acknowledges is journaled for the next writer of the graph.
        if (tenure !== undefined)
          journalAccepted(services, website, tenure, nowMs, input.connectorId, receivedAt, out, valid, validRaw);
      },
    );
    countAccepted(services, website, written.filter((o) => o.status === 'accepted').length, nowMs);
    return written;
  };
  const outcomes =
    unchanged !== null
      ? unchanged
      : commitWithoutSync(inbox, write, (written) => written.some((o) => o.status === 'accepted'));
  const acceptedIds = outcomes.flatMap((o) => (o.status === 'accepted' ? [o.rawContentId] : []));
  let jobId: string | null = null;
  if (acceptedIds.length > 0) {
    try {
      jobId = commitWithoutSync(
        services.controlDb,
        () => services.jobs.enqueue(contentIngestJob, { website_id: website.id, raw_content_ids: acceptedIds }).id,
      );
    } catch (error) {
      services.logger.error(
        { err: error, websiteId: website.id },
        'content.ingest enqueue failed; the pending rows will be re-enqueued by the sweep',
      );
    }
  }
  // Unchanged items too wait for rows not yet on disk: an answer never rests on rows a power cut could take.
  await Promise.all([
    syncCommits(graphDb),
    syncCommits(inbox),
    acceptedIds.length > 0 ? syncCommits(services.controlDb) : undefined,
  ]);
  const results: ItemResult[] = [];
  let refusal: ItemResult['error'];
  let v = 0;
  let accepted = 0;
  let skipped = 0;
  let errored = 0;
  for (const c of checks) {
    if (!c.ok) {
      errored++;
      results.push({ id: c.id, status: 'error', checksum: c.checksum, error: { code: c.code, message: c.message } });
      continue;
    }
    const o = outcomes[v++]!;
    if (o.status === 'accepted') {
      accepted++;
      results.push({
        id: c.item.id,
        status: 'accepted',
        checksum: c.item.checksum,
        raw_content_id: o.rawContentId,
        job_id: jobId,
      });
    } else if (o.status === 'over_limit') {
      errored++;
      results.push({
        id: c.item.id,
        status: 'error',
        checksum: c.item.checksum,
        error: (refusal ??= itemError(
          limitReachedError('items', website.plan, { limit: quota.limit, used: quota.limit }),
        )),
      });
    } else {
      skipped++;
      results.push({ id: c.item.id, status: 'skipped', checksum: c.item.checksum, reason: o.reason });
    }
  }
  const m = services.metrics.ingestItems;
  if (accepted) m.inc({ endpoint: input.endpoint, outcome: 'accepted' }, accepted);
  if (skipped) m.inc({ endpoint: input.endpoint, outcome: 'skipped' }, skipped);
  if (errored) m.inc({ endpoint: input.endpoint, outcome: 'error' }, errored);
  return { website_id: website.id, received: checks.length, accepted, skipped, errored, results };
}

/**
 * Raises the organization's items_ingested counter and the website's analytics (items.ingested,
 * src/control/analytics) in one transaction; a failure is logged, never fails the request (the rows are written).
 */
function countAccepted(
  services: AcceptInput['services'],
  website: IngestWebsite,
  accepted: number,
  nowMs: number,
): void {
  if (accepted === 0) return;
  try {
    commitWithoutSync(services.controlDb, () =>
      services.controlDb
        .transaction(() => {
          addUsage(services.controlDb, website.organizationId, 'items_ingested', accepted, nowMs);
          addWebsiteEvent(services.controlDb, website.id, METRICS.itemsIngested, accepted, nowMs);
        })
        .immediate(),
    );
  } catch (error) {
    services.logger.warn({ err: error }, 'usage counter update failed');
  }
}

function itemError(error: AppError): NonNullable<ItemResult['error']> {
  return { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) };
}

/**
 * partial false and the item quota ran out within the request: 422
 * ingest.batch_rejected naming the items over it; nothing is stored.
 */
function overLimitBatch(
  checks: ReadonlyArray<ReturnType<typeof checkItem>>,
  outcomes: readonly WriteOutcome[],
  plan: string,
  quota: Quota,
): AppError {
  const refusal = limitReachedError('items', plan, { limit: quota.limit, used: quota.limit });
  const items: Array<{ index: number; id: string; code: string; message: string; details?: Record<string, unknown> }> =
    [];
  let v = 0;
  checks.forEach((c, index) => {
    if (c.ok && outcomes[v++]!.status === 'over_limit')
      items.push({ index, id: c.item.id, code: refusal.code, message: refusal.message, details: refusal.details });
  });
  return new AppError(
    'ingest.batch_rejected',
    `${items.length} of ${checks.length} items would exceed the plan's monthly item quota (${quota.limit.toLocaleString('en-US')}) and partial is false, so nothing was stored; see details.items.`,
    { details: { items } },
  );
}
