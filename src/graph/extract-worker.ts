import { parentPort } from 'node:worker_threads';
import { extractRows, type ExtractOutcome, type RawRow } from './extract-row.js';
import type { FieldMapping } from '../contract/ingest-item.js';
import type { WebsiteInfo } from '../website/types.js';

/** What the pool sends: one batch of raw rows to extract. */
export interface ExtractRequest { id: number; site: WebsiteInfo; mappings: FieldMapping[]; rows: RawRow[] }
/**
 * What the worker answers: the outcome of each row, in order, as JSON text. The calling thread
 * parses it in about half the time a structured clone of the same objects takes to arrive, and
 * contributions are plain JSON data (the store writes them as JSON or as SQLite values).
 */
export interface ExtractResponse { id: number; outcomes: string }

export type { ExtractOutcome };

/**
 * The worker side of the extraction pool (extraction-pool.ts): extraction is pure CPU work on
 * plain data (no database), so it runs here while the calling thread writes the previous batch.
 */
parentPort?.on('message', (request: ExtractRequest) => {
  const response: ExtractResponse = { id: request.id, outcomes: JSON.stringify(extractRows(request.rows, request.site, request.mappings)) };
  parentPort!.postMessage(response);
});
