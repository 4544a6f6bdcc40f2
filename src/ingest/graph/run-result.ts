/** What a content.ingest run did with its raw items, added up batch by batch (process-raw-items.ts). */
export interface ProcessRawItemsResult {
  processed: number;
  failed: number;
  /** Ids not found in state 'pending' (superseded by a newer version, already done, or tombstoned). */
  skipped: number;
  failures: Array<{ rawContentId: string; itemKey: string; error: string }>;
  /** Items extracted with warnings (candidates left out); item_contributions.warnings keeps them all. */
  warned: number;
  /** The warnings of the first WARNED_LISTED such items, for the job's log. */
  warnings: Array<{ itemKey: string; warnings: string[] }>;
}

export const WARNED_LISTED = 20;

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
  total.failures.push(...part.failures);
  total.warned += part.warned;
  total.warnings.push(...part.warnings.slice(0, WARNED_LISTED - total.warnings.length));
}
