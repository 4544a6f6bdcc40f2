import type { ItemErrorCode } from './item-errors.js';

/** One item content.ingest refused: marked failed in raw_items with `error` as its last_error. */
export interface ItemFailure {
  rawContentId: string;
  /** `type:id` of the item. */
  itemKey: string;
  /** The item's url as pushed (null when the raw row has none left). */
  url: string | null;
  code: ItemErrorCode;
  error: string;
}

/** What a content.ingest run did with its raw items, added up batch by batch (process-raw-items.ts). */
export interface ProcessRawItemsResult {
  processed: number;
  failed: number;
  /** Ids not found in state 'pending' (superseded by a newer version, already done, or tombstoned). */
  skipped: number;
  /** The first FAILURES_LISTED failures (a batch's part lists all of its own); `failed` counts them all. */
  failures: ItemFailure[];
  /** Items extracted with warnings (candidates left out); item_contributions.warnings keeps them all. */
  warned: number;
  /** The warnings of the first WARNED_LISTED such items, for the job's log. */
  warnings: Array<{ itemKey: string; warnings: string[] }>;
}

export const WARNED_LISTED = 20;
/** Failures a run's total keeps in memory: the job's record keeps its own bounded list (JobQueue.addItemErrors). */
export const FAILURES_LISTED = 100;

export const emptyResult = (): ProcessRawItemsResult => ({
  processed: 0,
  failed: 0,
  skipped: 0,
  failures: [],
  warned: 0,
  warnings: [],
});

export function addResult(total: ProcessRawItemsResult, part: ProcessRawItemsResult): void {
  total.processed += part.processed;
  total.failed += part.failed;
  total.skipped += part.skipped;
  total.failures.push(...part.failures.slice(0, Math.max(0, FAILURES_LISTED - total.failures.length)));
  total.warned += part.warned;
  total.warnings.push(...part.warnings.slice(0, WARNED_LISTED - total.warnings.length));
}
