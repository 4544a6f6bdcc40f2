import { statSync } from 'node:fs';
import { IngestClient } from '../../sdk/client/client.js';
import { MAX_BATCH_ITEMS } from '../../platform/contract/ingest-limits.js';
import { IngestError } from '../../sdk/client/errors.js';
import type { BatchResult, IngestItemInput } from '../../sdk/client/types.js';
import { mapFolder, readJsonlItems, type MapProblem } from './map-files.js';
import { emptySummary, type PushProgress, type PushSummary } from './progress.js';

export interface PushOptions {
  /** A folder of .md/.html/.json files, or a .jsonl file of items. */
  source: string;
  /** API origin of the daemon. */
  url: string;
  token: string;
  websiteId: string;
  domain: string;
  /** Origin for derived item urls; default https://<domain>. */
  baseUrl?: string;
  progress: PushProgress;
}

export interface PushReport {
  summary: PushSummary;
  problems: MapProblem[];
  /** Per-item errors the server returned: id, code, message. */
  itemErrors: Array<{ id: string | null; code: string; message: string }>;
}

export function createPushClient(options: Pick<PushOptions, 'url' | 'token' | 'websiteId' | 'domain'>): IngestClient {
  return new IngestClient({
    baseUrl: options.url,
    token: options.token,
    websiteId: options.websiteId,
    siteDomain: options.domain,
    connectorType: 'nodectl-push',
  });
}

/** Reads the source into items: a folder is mapped file by file, a .jsonl read line by line. */
export function readSourceItems(source: string, baseUrl: string): { items: IngestItemInput[]; problems: MapProblem[] } {
  return statSync(source).isDirectory() ? mapFolder(source, { baseUrl }) : readJsonlItems(source);
}

/** Adds one batch answer to the summary and collects its item errors. */
export function addBatch(report: PushReport, result: BatchResult): void {
  const s = report.summary;
  s.received += result.received;
  s.accepted += result.accepted;
  s.skipped += result.skipped;
  s.errored += result.errored;
  for (const r of result.results)
    if (r.status === 'error')
      report.itemErrors.push({ id: r.id, code: r.error?.code ?? 'unknown', message: r.error?.message ?? '' });
}

/** Pushes items in signed batches of MAX_BATCH_ITEMS, reporting progress; request failures are counted, not thrown. */
export async function pushItems(
  client: IngestClient,
  items: readonly IngestItemInput[],
  report: PushReport,
  progress: PushProgress,
): Promise<void> {
  const total = items.length;
  progress.update(0, total, report.summary);
  for (let i = 0; i < total; i += MAX_BATCH_ITEMS) {
    const chunk = items.slice(i, i + MAX_BATCH_ITEMS);
    try {
      addBatch(report, await client.sendBatch(chunk));
    } catch (error) {
      report.summary.failedRequests++;
      const e = error as IngestError;
      progress.note(`request failed: ${e.code ? `[${e.code}] ` : ''}${e.message}`);
    }
    progress.update(Math.min(total, i + MAX_BATCH_ITEMS), total, report.summary);
  }
}

/** One push of a whole folder or .jsonl file. */
export async function runPush(options: PushOptions): Promise<PushReport> {
  const baseUrl = options.baseUrl ?? `https://${options.domain}`;
  const { items, problems } = readSourceItems(options.source, baseUrl);
  const report: PushReport = { summary: emptySummary(), problems, itemErrors: [] };
  for (const p of problems) options.progress.note(`skipped file ${p.file}: ${p.message}`);
  await pushItems(createPushClient(options), items, report, options.progress);
  return report;
}
