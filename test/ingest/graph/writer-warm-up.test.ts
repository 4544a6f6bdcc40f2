import { describe, expect, it } from 'vitest';
import { extractRows } from '../../../src/ingest/graph/extract-row.js';
import type { PendingExtraction } from '../../../src/ingest/graph/extract-worker.js';
import { writeBatch, writePendingBatch } from '../../../src/ingest/graph/process-raw-items.js';
import { WARM_UP_SITE, warmUpRows } from '../../../src/ingest/graph/warm-up-pages.js';
import { WRITER_WARM_UP_PAGES, WriterWarmUp } from '../../../src/ingest/graph/writer-warm-up.js';
import type { Db } from '../../../src/platform/storage/sqlite.js';

/** What an extraction worker answers for warm-up pages first to first + count - 1 (bodies left out). */
function warmUpExtraction(first: number, count: number): PendingExtraction {
  const rows = warmUpRows(first, count);
  const outcomes = extractRows(rows, WARM_UP_SITE, []);
  return { rows: rows.map((row) => ({ ...row, body: null })), outcomes };
}

/**
 * A warm-up that writes as the writer thread does (one transaction per batch), remembering each graph it wrote into.
 */
function inThisThread(limit?: number) {
  const graphs: Db[] = [];
  const warmUp = new WriterWarmUp(async (db, write) => {
    graphs.push(db);
    let part;
    writeBatch(db, () => (part = writePendingBatch(db, write.site, write.batch, write.extracted, write.now)));
    return part;
  }, limit);
  return { warmUp, graphs };
}

describe("the graph writer thread's warm-up", () => {
  it('writes each extraction into one private in-memory graph through the write it is given, as a real batch', async () => {
    const { warmUp, graphs } = inThisThread();
    expect(await warmUp.write(() => warmUpExtraction(0, 25), WARM_UP_SITE)).toBe(25);
    expect(await warmUp.write(() => warmUpExtraction(25, 25), WARM_UP_SITE)).toBe(50);
    expect(new Set(graphs).size).toBe(1);
    const db = graphs[0]!;
    expect(db.memory).toBe(true);
    expect(db.prepare(`SELECT state, count(*) AS n FROM raw_items GROUP BY state`).all()).toEqual([
      { state: 'processed', n: 50 },
    ]);
    expect(db.prepare('SELECT count(*) FROM item_contributions').pluck().get()).toBe(50);
    expect(db.prepare('SELECT count(*) FROM search_fts_docsize').pluck().get()).toBeGreaterThan(50);
  });

  it('writes the same pages again as a re-ingestion (each extraction worker warms up on the same pages)', async () => {
    const { warmUp, graphs } = inThisThread();
    await warmUp.write(() => warmUpExtraction(0, 25), WARM_UP_SITE);
    const db = graphs[0]!;
    const before = db.prepare('SELECT count(*) FROM fact_candidates').pluck().get();
    expect(await warmUp.write(() => warmUpExtraction(0, 25), WARM_UP_SITE)).toBe(50);
    expect(db.prepare('SELECT count(*) FROM item_contributions').pluck().get()).toBe(25);
    expect(db.prepare('SELECT count(*) FROM fact_candidates').pluck().get()).toBe(before);
  });

  it('closes its graph once the limit is written, and writes nothing more', async () => {
    const { warmUp, graphs } = inThisThread(50);
    await warmUp.write(() => warmUpExtraction(0, 25), WARM_UP_SITE);
    expect(warmUp.graphOpen).toBe(true);
    expect(await warmUp.write(() => warmUpExtraction(25, 25), WARM_UP_SITE)).toBe(50);
    expect(warmUp.graphOpen).toBe(false);
    expect(graphs[0]!.open).toBe(false);
    // Past the limit an answer is not even read (parsed), let alone written.
    expect(
      await warmUp.write(() => {
        throw new Error('read past the limit');
      }, WARM_UP_SITE),
    ).toBe(50);
    expect(graphs).toHaveLength(2);
    expect(WRITER_WARM_UP_PAGES).toBeGreaterThanOrEqual(500);
  });

  it('closes its graph at the limit even when that write fails', async () => {
    let db: Db | undefined;
    const warmUp = new WriterWarmUp(async (graph) => {
      db = graph;
      throw new Error('refused');
    }, 25);
    await expect(warmUp.write(() => warmUpExtraction(0, 25), WARM_UP_SITE)).rejects.toThrow('refused');
    expect(db!.open).toBe(false);
    expect(warmUp.graphOpen).toBe(false);
  });
});
