import { parentPort } from 'node:worker_threads';
import { extractRowsJson, type ExtractOutcome, type RawRow } from './extract-row.js';
import type { FieldMapping } from '../../platform/contract/index.js';
import type { WebsiteInfo } from '../../control/records/index.js';
import { GRAPH_DB_OPTIONS, INBOX_DB_OPTIONS, KeptConnections, openDatabase } from '../../platform/storage/index.js';
import { rowsToExtract } from './inbox.js';
import { warmUpRows } from './warm-up-pages.js';
import { lowerThreadPriority, nameThread } from '../../platform/threads/index.js';

/**
 * What the pool sends: one batch to extract, either its raw rows, or the graph file and the raw
 * content ids, whose pending rows the worker reads itself (extraction-pool.ts extractPending);
 * with `inboxFile`, rows still in the website's inbox are read there (the graph writer thread
 * moves them with the batch).
 */
export type ExtractRequest = { id: number; site: WebsiteInfo; mappings: FieldMapping[] } & (
  { rows: RawRow[] } | { file: string; ids: string[]; inboxFile?: string } | WarmUpRequest
);
/**
 * Extract warm-up pages first to first + count - 1 (warm-up-pages.ts), the JIT's warm-up, and
 * serialise them as a file request's answer is (a PendingExtraction), so that code warms up too;
 * the answer is an empty string. The site (WARM_UP_SITE) and mappings come in the request, as a
 * real batch's do.
 */
export interface WarmUpRequest {
  warmUp: { first: number; count: number };
}
/**
 * What the worker answers: the outcome of each row, in order, as JSON text (extractRowsJson: each
 * item's rows without the columns they repeat from the item; for a file request, a
 * PendingExtraction); the pool reads it back with readExtractedRows. The calling thread parses
 * it in about half the time a structured clone of the same objects takes to arrive, and
 * contributions are plain JSON data (the store writes them as JSON or as SQLite values).
 * The text comes as its UTF-8 bytes in a buffer transferred, not copied: the event loop hands a
 * file request's answer on to the graph writer thread unread, and a string would pass through
 * its heap on the way (docs/graph.md "The writer thread").
 */
export interface ExtractResponse {
  id: number;
  outcomes: Uint8Array;
}

/** The pending rows the worker read (bodies left out) and the outcome of each, in order. */
export interface PendingExtraction {
  rows: RawRow[];
  outcomes: ExtractOutcome[];
}

export type { ExtractOutcome };

/**
 * Read-only connections to graph and inbox files (WAL: each read sees the last commit, whatever
 * the writer is doing), kept for the next batch.
 */
const connections = new KeptConnections((file) => openDatabase(file, { ...GRAPH_DB_OPTIONS, readonly: true }), 1000);
const inboxes = new KeptConnections((file) => openDatabase(file, { ...INBOX_DB_OPTIONS, readonly: true }), 1000);

/** Each answer's text as UTF-8 bytes in a buffer of its own, which the answer transfers. */
const encoder = new TextEncoder();

/**
 * The JSON of the rows' PendingExtraction, their bodies left out,
 * its outcomes serialised as they are made (extractRowsJson).
 */
function pendingExtractionJson(rows: RawRow[], site: WebsiteInfo, mappings: FieldMapping[]): string {
  const extracted = extractRowsJson(rows, site, mappings);
  for (const row of rows) row.body = null;
  return `{"rows":${JSON.stringify(rows)},"outcomes":${extracted}}`;
}

/**
 * The worker side of the extraction pool (extraction-pool.ts): extraction is pure CPU work on
 * plain data, so it runs here while the calling thread writes the previous batch. Reading the
 * raw bodies here too spares the writing thread reading them and copying them over.
 */
if (parentPort) {
  nameThread('nodectl-extract');
  // Below the event loop and the graph writer thread: ingest requests wait for both, never for extraction.
  lowerThreadPriority();
}
parentPort?.on('message', (request: ExtractRequest) => {
  let outcomes: string;
  if ('warmUp' in request) {
    // Serialised as a real answer is, so that code warms up too; the text is not sent.
    pendingExtractionJson(warmUpRows(request.warmUp.first, request.warmUp.count), request.site, request.mappings);
    outcomes = '';
  } else if ('rows' in request) {
    outcomes = extractRowsJson(request.rows, request.site, request.mappings);
  } else {
    outcomes = pendingExtractionJson(
      rowsToExtract(
        connections.get(request.file),
        request.inboxFile === undefined ? undefined : inboxes.get(request.inboxFile),
        request.ids,
      ),
      request.site,
      request.mappings,
    );
  }
  const bytes = encoder.encode(outcomes);
  parentPort!.postMessage({ id: request.id, outcomes: bytes } satisfies ExtractResponse, [bytes.buffer]);
});
