import { GRAPH_DB_OPTIONS } from '../../platform/storage/graph-db.js';
import { openDatabase, type Db } from '../../platform/storage/sqlite.js';
import type { WebsiteInfo } from '../../control/records/website-info.js';
import type { PendingExtraction } from './extract-worker.js';

/**
 * Warm-up pages the graph writer thread writes when the daemon starts (docs/graph.md "A warm
 * start"): the extraction workers' warm-up answers, written through the same path as a real batch
 * (write queue, transaction, merge, search documents) into a private in-memory graph, so that V8
 * has optimised that code before the first real batch. The graph is dropped once this many were
 * written: about 16 MB at its largest.
 */
export const WRITER_WARM_UP_PAGES = 1000;

/** When warm-up rows were received and processed: a fixed time (nothing of the warm-up is kept). */
export const WARM_UP_NOW = '2026-01-01T00:00:00.000Z';

/** One batch's write, as process-raw-items.ts writePendingBatch takes it (a warm-up batch's and a real one's). */
export interface BatchWrite {
  site: WebsiteInfo;
  batch: string[];
  extracted: PendingExtraction;
  now: string;
}

/**
 * The writer thread's warm-up: a private graph in memory (every graph migration, nothing else
 * opens it), each extraction written into it by `writeBatch` (the thread's own write path), until
 * `limit` pages were; the graph is then closed and its memory freed.
 */
export class WriterWarmUp {
  private graph: Db | undefined;
  private pages = 0;

  constructor(
    private readonly writeBatch: (db: Db, write: BatchWrite) => Promise<unknown>,
    private readonly limit = WRITER_WARM_UP_PAGES,
  ) {}

  /**
   * Writes the extraction's rows into the private graph for `site`; resolves with the pages
   * written in all, this write's included. Once `limit` were, nothing is written and `read` (the
   * extraction worker's answer, parsed) is not even called.
   */
  async write(read: () => PendingExtraction, site: WebsiteInfo): Promise<number> {
    if (this.pages >= this.limit) return this.pages;
    const extracted = read();
    const db = (this.graph ??= openDatabase(':memory:', GRAPH_DB_OPTIONS));
    // A real batch's ids come copied in a message: copied the same way (structuredClone), the array has the same hidden class.
    const batch = structuredClone(insertWarmUpRows(db, extracted));
    const written = (this.pages += batch.length);
    const last = written >= this.limit;
    try {
      await this.writeBatch(db, { site, batch, extracted, now: WARM_UP_NOW });
    } finally {
      if (last) {
        db.close();
        this.graph = undefined;
      }
    }
    return written;
  }

  /** Whether the private graph is open (warm-up pages were written and the limit is not reached yet). */
  get graphOpen(): boolean {
    return this.graph !== undefined;
  }
}

/**
 * Stores the extraction's rows as pending raw items, as a push would have (their bodies are not
 * needed: the extraction is done). A row already there (each extraction worker warms up on the
 * same pages) is pending again, and its write then replaces its contribution.
 */
function insertWarmUpRows(db: Db, extracted: PendingExtraction): string[] {
  const insert =
    db.prepare(`INSERT INTO raw_items (raw_content_id, item_type, item_id, checksum, url, state, received_at)
    VALUES (?, ?, ?, 'sha256:warm-up', 'https://warm-up.example/', 'pending', ?) ON CONFLICT (raw_content_id) DO UPDATE SET state = 'pending'`);
  db.transaction(() => {
    for (const row of extracted.rows) insert.run(row.raw_content_id, row.item_type, row.item_id, row.received_at);
  })();
  return extracted.rows.map((row) => row.raw_content_id);
}
