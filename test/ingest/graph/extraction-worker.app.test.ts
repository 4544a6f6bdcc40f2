import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { IngestItem } from '../../../src/platform/contract/ingest-item.js';
import { createExtractionPool, extractWorkerUrl } from '../../../src/ingest/graph/extraction-pool.js';
import type { ContributionRows } from '../../../src/ingest/graph/contribution-rows.js';
import {
  extractRows,
  extractRowsJson,
  readExtractedRows,
  type ExtractOutcome,
} from '../../../src/ingest/graph/extract-row.js';
import { processRawItems, processRawItemsConcurrently } from '../../../src/ingest/graph/process-raw-items.js';
import { writeRawItems } from '../../../src/ingest/graph/raw-items.js';
import { GRAPH_DB_OPTIONS } from '../../../src/platform/storage/graph-db.js';
import { openDatabase, type Db } from '../../../src/platform/storage/sqlite.js';
import { contentColumns, site, tempGraph, type TempGraph } from './helpers.js';

const RECEIVED = '2026-02-01T12:00:00.000Z';
const graphs: TempGraph[] = [];
afterEach(() => {
  for (const g of graphs.splice(0)) g.cleanup();
});

function page(i: number): IngestItem {
  const ld = {
    '@context': 'https://schema.org',
    '@type': 'Product',
    name: `Kettle ${i}`,
    sku: `SKU-${i}`,
    offers: { '@type': 'Offer', price: `${10 + i}.00`, priceCurrency: 'EUR' },
  };
  return {
    type: 'product',
    id: String(i),
    url: `https://shop.example/p/${i}`,
    checksum: 'sha256:' + i.toString(16).padStart(64, '0'),
    html: `<html lang="en"><head><title>Kettle ${i}</title><script type="application/ld+json">${JSON.stringify(ld)}</script></head><body><main><h1>Kettle ${i}</h1><p>Kettle ${i} boils water.</p></main></body></html>`,
  };
}

/** The raw row of product 1, as the graph holds it before extraction. */
function oneRawRow() {
  return [
    {
      raw_content_id: 'raw_1',
      item_type: 'product',
      item_id: '1',
      body: JSON.stringify(page(1)),
      received_at: RECEIVED,
    },
  ];
}

function pending(db: Db, items: IngestItem[]): string[] {
  return writeRawItems(db, items, (i) => JSON.stringify(items[i]), {
    connectorId: 'conn_1',
    defaultLanguage: 'en',
    receivedAt: RECEIVED,
  }).flatMap((o) => (o.status === 'accepted' ? [o.rawContentId] : []));
}

/** The records, and the raw items' states (raw content ids are made at random). */
const dump = (db: Db) => ({
  ...Object.fromEntries(
    ['item_contributions', 'entities', 'fact_candidates', 'chunks', 'qa'].map((t) => [
      t,
      db
        .prepare(`SELECT ${contentColumns(db, t)} FROM ${t}`)
        .raw()
        .all()
        .map((r) => JSON.stringify(r))
        .sort(),
    ]),
  ),
  raw_items: db.prepare('SELECT item_id, state, processed_at FROM raw_items ORDER BY item_id').raw().all(),
});

describe('extractRowsJson', () => {
  const rawRows = () =>
    [1, 2, 3].map((i) => ({
      raw_content_id: `raw_${i}`,
      item_type: 'product',
      item_id: String(i),
      body: JSON.stringify(page(i)),
      received_at: RECEIVED,
    }));

  it('read back by readExtractedRows is extractRows, outcome by outcome, failures included', () => {
    const rows = rawRows();
    rows[1]!.body = '{"not": "an item"}';
    // The third page names a canonical url: its rows' source url is that one, not the item's url.
    rows[2]!.body = JSON.stringify({ ...page(3), canonical_url: 'https://shop.example/kettles/3' });
    const text = extractRowsJson(rows, site, []);
    const expected = extractRows(rows, site, []);
    expect(readExtractedRows(JSON.parse(text) as ExtractOutcome[])).toEqual(expected);
    expect((JSON.parse(text) as Array<{ error?: string }>).map((o) => o.error !== undefined)).toEqual([
      false,
      true,
      false,
    ]);
    const third = expected[2]!;
    if (!('rows' in third)) throw new Error('the third page failed');
    expect(third.rows.facts[0]![19]).toBe('https://shop.example/kettles/3');
    expect(extractRowsJson([], site, [])).toBe('[]');
  });

  it('leaves out the columns each row repeats from its item (item key, source id and url, last seen), for every table', () => {
    const [outcome] = JSON.parse(extractRowsJson(rawRows().slice(0, 1), site, [])) as Array<{ rows: ContributionRows }>;
    const tables = ['entityContributors', 'relContributors', 'facts', 'chunks', 'qa', 'qaFacts'] as const;
    for (const table of tables) expect(outcome!.rows[table].length, table).toBeGreaterThan(0);
    expect(outcome!.rows.facts.map((row) => [row[1], row[18], row[19], row[20]])).toEqual(
      outcome!.rows.facts.map(() => [0, 0, 0, 0]),
    );
    expect(outcome!.rows.qaFacts.map((row) => row[2])).toEqual(outcome!.rows.qaFacts.map(() => 0));
    const text = JSON.stringify(outcome);
    expect(text.split('"product:1"').length - 1).toBe(2); // the item's key and its row's first column
  });
});

describe('extraction workers (runs the build: npm run build)', () => {
  it('read the pending rows of a graph file themselves, in the order asked, and send no bodies back', async () => {
    const g = tempGraph();
    graphs.push(g);
    const [first, second, third] = pending(g.db, [page(1), page(2), page(3)]);
    g.db.prepare(`UPDATE raw_items SET state = 'processed' WHERE raw_content_id = ?`).run(second);
    const pool = createExtractionPool({ size: 1, workerUrl: extractWorkerUrl() });
    try {
      const { rows, outcomes } = await pool.extractPending(site, [], g.file, [third!, second!, 'raw_missing', first!]);
      expect(rows.map((r) => [r.raw_content_id, r.item_id, r.body])).toEqual([
        [third, '3', null],
        [first, '1', null],
      ]);
      expect(outcomes.map((o) => ('rows' in o ? o.rows.itemKey : o.error))).toEqual(['product:3', 'product:1']);
    } finally {
      await pool.close();
    }
  });

  it("read a website's graph file made again at the same path anew, not through the connection they kept", async () => {
    const g = tempGraph();
    graphs.push(g);
    const pool = createExtractionPool({ size: 1, workerUrl: extractWorkerUrl() });
    try {
      const [first] = pending(g.db, [page(1)]);
      expect((await pool.extractPending(site, [], g.file, [first!])).rows.map((r) => r.item_id)).toEqual(['1']);
      // The website is deleted and created again: a new file at the same path, other items.
      g.db.close();
      for (const suffix of ['', '-wal', '-shm']) rmSync(g.file + suffix, { force: true });
      g.db = openDatabase(g.file, GRAPH_DB_OPTIONS);
      const [second] = pending(g.db, [page(2)]);
      expect((await pool.extractPending(site, [], g.file, [second!, first!])).rows.map((r) => r.item_id)).toEqual([
        '2',
      ]);
    } finally {
      await pool.close();
    }
  });

  it('with a database without a file (rows sent to the workers), write the same graph as one thread', async () => {
    const [inThread, inMemory] = [
      openDatabase(':memory:', GRAPH_DB_OPTIONS),
      openDatabase(':memory:', GRAPH_DB_OPTIONS),
    ];
    const items = Array.from({ length: 7 }, (_, i) => page(i));
    const pool = createExtractionPool({ size: 1, workerUrl: extractWorkerUrl() });
    try {
      const expected = processRawItems(inThread, site, pending(inThread, items), { now: RECEIVED, batchSize: 3 });
      expect(
        await processRawItemsConcurrently(inMemory, site, pending(inMemory, items), {
          now: RECEIVED,
          batchSize: 3,
          pool,
        }),
      ).toEqual(expected);
      expect(dump(inMemory)).toEqual(dump(inThread));
    } finally {
      await pool.close();
      inThread.close();
      inMemory.close();
    }
  });

  it('go on to the next request posted while the calling thread is busy, and answer each in order', async () => {
    const pool = createExtractionPool({ size: 1, workerUrl: extractWorkerUrl() });
    const rows = (i: number) => [
      {
        raw_content_id: `raw_${i}`,
        item_type: 'product',
        item_id: String(i),
        body: JSON.stringify(page(i)),
        received_at: RECEIVED,
      },
    ];
    try {
      await pool.extract(site, [], rows(0)); // the worker is up
      const settled: string[] = [];
      const requests = [1, 2, 3].map((i) =>
        pool.extract(site, [], rows(i)).then((outcomes) => {
          settled.push('rows' in outcomes[0]! ? outcomes[0].rows.itemKey : outcomes[0]!.error);
        }),
      );
      // This thread writes a batch (blocks) long enough for the worker to extract all three: it
      // must already hold them, not wait for this thread to read one answer and post the next.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1500);
      await new Promise((resolve) => setImmediate(resolve));
      expect(settled).toEqual(['product:1', 'product:2', 'product:3']);
      await Promise.all(requests);
    } finally {
      await pool.close();
    }
  });

  it('reject a request whose answer cannot be read, and answer the next one', async () => {
    const pool = createExtractionPool({ size: 1, workerUrl: new URL('./garbled-extract-worker.mjs', import.meta.url) });
    const row = (body: string) => [
      { raw_content_id: 'raw_1', item_type: 'product', item_id: '1', body, received_at: RECEIVED },
    ];
    try {
      await expect(pool.extract(site, [], row('garbled'))).rejects.toThrow(SyntaxError);
      await expect(pool.extract(site, [], row('{}'))).resolves.toEqual([]);
    } finally {
      await pool.close();
    }
  });

  it('end a worker left idle, unless the pool was warmed up: a new worker would start cold', async () => {
    const rows = oneRawRow();
    // The pools' idle timers on a fake clock: a worker is idle for as long as the test says.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const cold = createExtractionPool({ size: 1, workerUrl: extractWorkerUrl(), idleMs: 20 });
    const warmed = createExtractionPool({ size: 1, workerUrl: extractWorkerUrl(), idleMs: 20 });
    try {
      await cold.extract(site, [], rows);
      await warmed.warmUp(30);
      expect(warmed.running).toBe(1);
      await warmed.extract(site, [], rows);
      vi.advanceTimersByTime(200);
      expect(cold.running).toBe(0);
      expect(warmed.running).toBe(1);
    } finally {
      vi.useRealTimers();
      await cold.close();
      await warmed.close();
    }
  });

  it('end when idle on request, warmed up or not, keeping a worker with a batch; the next batch starts one again', async () => {
    const rows = oneRawRow();
    const pool = createExtractionPool({ size: 1, workerUrl: extractWorkerUrl() });
    try {
      await pool.warmUp(30);
      const busy = pool.extract(site, [], rows);
      expect(await pool.endIdle()).toBe(0);
      expect(pool.running).toBe(1);
      expect((await busy).length).toBe(1);
      expect(await pool.endIdle()).toBe(1);
      expect(pool.running).toBe(0);
      const [outcome] = await pool.extract(site, [], rows);
      expect('rows' in outcome! && outcome.rows.itemKey).toBe('product:1');
      expect(pool.running).toBe(1);
    } finally {
      await pool.close();
    }
  });

  it('stop warming up at the first real batch, which is answered right away', async () => {
    const pool = createExtractionPool({ size: 1, workerUrl: extractWorkerUrl() });
    const rows = oneRawRow();
    try {
      // 100,000 pages would take a minute or more; the real batch waits for one warm-up request at most
      // (the first is posted before warmUp returns).
      const order: string[] = [];
      const warming = pool.warmUp(100_000).then(() => void order.push('warm-up ended'));
      expect(pool.running).toBe(1);
      const [outcome] = await pool.extract(site, [], rows);
      order.push('batch answered');
      expect('rows' in outcome! && outcome.rows.itemKey).toBe('product:1');
      await warming;
      // The warm-up stopped at the batch: it ended as the one request it had in flight was answered, before the batch was.
      expect(order).toEqual(['warm-up ended', 'batch answered']);
    } finally {
      await pool.close();
    }
  });

  it('reject every request posted to a worker that fails', async () => {
    const pool = createExtractionPool({ size: 1, workerUrl: extractWorkerUrl() });
    try {
      const requests = [1, 2, 3].map(() => pool.extractPending(site, [], '/nonexistent/dir/graph.sqlite', ['raw_1']));
      for (const request of requests) await expect(request).rejects.toThrow();
    } finally {
      await pool.close();
    }
  });
});
