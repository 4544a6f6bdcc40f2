import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import type { ItemContribution } from '../../../src/ingest/extract/contribution.js';
import type { IngestItem } from '../../../src/platform/contract/ingest-item.js';
import { applyContribution, applyContributions } from '../../../src/ingest/graph/apply-contribution.js';
import { setEditorial } from '../../../src/ingest/graph/editorial.js';
import {
  createExtractionPool,
  extractWorkerUrl,
  type ExtractionPool,
} from '../../../src/ingest/graph/extraction-pool.js';
import { createGraphWriter, writeWorkerUrl } from '../../../src/ingest/graph/graph-writer.js';
import {
  processRawItems,
  processRawItemsConcurrently,
  writePendingBatch,
  writeQueueOf,
} from '../../../src/ingest/graph/process-raw-items.js';
import { extractRows, type RawRow } from '../../../src/ingest/graph/extract-row.js';
import { graphStatements } from '../../../src/ingest/graph/statements.js';
import { writeRawItems } from '../../../src/ingest/graph/raw-items.js';
import { forgetMovedInboxRows, moveFromInbox, writeInboxItems } from '../../../src/ingest/graph/inbox.js';
import { INBOX_DB_OPTIONS } from '../../../src/platform/storage/graph-db.js';
import { removeItem } from '../../../src/ingest/graph/remove-item.js';
import { writeTurnOf } from '../../../src/ingest/graph/write-turn.js';
import { emptySearchTouched, refreshSearchDocs } from '../../../src/ingest/graph/search-docs.js';
import { openDatabase, type Db } from '../../../src/platform/storage/sqlite.js';
import { trustScore } from '../../../src/control/records/website-info.js';
import { contentColumns, contribution, entity, fact, ref, site, tempGraph, type TempGraph } from './helpers.js';
import { readIndexedDocuments } from '../../output/knowledge/search-helpers.js';
import { makeTempDir } from '../../helpers/paths.js';

const graphs: TempGraph[] = [];
afterEach(() => {
  for (const g of graphs.splice(0)) g.cleanup();
});
const graph = (): TempGraph => {
  const g = tempGraph();
  graphs.push(g);
  return g;
};

/** Every row of every table the writers fill, sorted, and the search index: two graphs are the same when these are. */
function tables(db: Db): Record<string, string[]> {
  const names = [
    'item_contributions',
    'sources',
    'entity_contributors',
    'entities',
    'fact_candidates',
    'relationship_contributors',
    'relationships',
    'chunks',
    'qa',
    'qa_facts',
    'editorial',
  ];
  const out: Record<string, string[]> = {};
  for (const name of names)
    out[name] = db
      .prepare(`SELECT ${contentColumns(db, name)} FROM ${name}`)
      .raw()
      .all()
      .map((r) => JSON.stringify(r))
      .sort();
  // By record: a document's rowid is its record's, which the order of the writes decides.
  out.search_fts = readIndexedDocuments(db)
    .map((d) => JSON.stringify([d.kind, d.recordId, d.terms]))
    .sort();
  return out;
}

/** A deterministic generator: items that share entities, compete for facts, link to each other, and repeat questions and chunk positions. */
function randomContributions(seed: number) {
  let s = seed;
  const rnd = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
  const provenance = ['cms_field', 'schema_org', 'seo_meta', 'text_extraction', 'llm_inferred'] as const;
  const shared = Array.from({ length: 10 }, (_, i) =>
    ref(pick(['Person', 'Brand', 'Event', 'MusicEvent']), `k${i % 7}`),
  );
  const page = (i: number) => `https://shop.example/${i}`;
  const make = (i: number): ItemContribution => {
    const primary = ref('Product', page(i));
    const refs = [primary, ...shared];
    const facts = Array.from({ length: 5 }, () =>
      fact(pick(refs), pick(['price', 'name', 'color']), pick(['a', 'b', 1, 2]), {
        language: pick(['en', 'de']),
        confidence: pick([0.5, 0.9]),
        provenanceMethod: pick(provenance),
      }),
    );
    return contribution(
      `product:${i}`,
      page(i),
      {
        entities: [
          entity(primary, `P${i}`),
          ...Array.from({ length: 2 }, () => {
            const r = pick(shared);
            return entity(r, `${r.canonicalKey}${pick(['x', 'y'])}`, {
              confidence: pick([0.5, 0.9]),
              provenanceMethod: pick(provenance),
              importance: 1 + Math.floor(rnd() * 5),
            });
          }),
        ],
        facts,
        relationships: Array.from({ length: 2 }, () => ({
          from: primary,
          type: pick(['brand', 'related']),
          to: rnd() < 0.4 ? ref('Product', page(Math.floor(rnd() * 8))) : pick(shared),
          language: 'en',
          confidence: pick([0.5, 0.9]),
          provenanceMethod: pick(provenance),
        })),
        chunks: Array.from({ length: 2 }, () => ({
          text: `text ${pick(['one', 'two'])} ${i}`,
          headingPath: ['H'],
          position: Math.floor(rnd() * 2),
          language: pick(['en', 'de']),
          mentions: [pick(refs)],
        })),
        qa: Array.from({ length: 2 }, () => {
          const f = pick(facts);
          return {
            question: pick(['What?', 'Who?']),
            answer: `A${Math.floor(rnd() * 3)}`,
            language: f.language,
            facts: [{ subject: f.subject, predicate: f.predicate }],
            entities: [primary],
            confidence: 0.8,
            provenanceMethod: 'schema_org' as const,
          };
        }),
      },
      pick(['2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z']),
    );
  };
  return { rnd, make };
}

describe('applyContributions', () => {
  it('leaves the same graph as applying the batch item by item, through re-ingestion, removals, pins and hides (repeated items in a batch included)', () => {
    for (const seed of [1, 2, 3]) {
      const [one, batched] = [graph(), graph()];
      const gen = randomContributions(seed);
      for (let step = 0; step < 40; step++) {
        const op = gen.rnd();
        if (op < 0.7) {
          const batch = Array.from({ length: 1 + Math.floor(gen.rnd() * 6) }, () =>
            gen.make(Math.floor(gen.rnd() * 8)),
          );
          one.db.transaction(() => {
            const search = emptySearchTouched();
            for (const c of batch) applyContribution(one.db, site, c, search);
            refreshSearchDocs(one.db, search);
          })();
          batched.db.transaction(() => {
            const search = emptySearchTouched();
            applyContributions(batched.db, site, batch, search);
            refreshSearchDocs(batched.db, search);
          })();
        } else if (op < 0.85) {
          const key = `product:${Math.floor(gen.rnd() * 8)}`;
          for (const g of [one, batched]) removeItem(g.db, site, key);
        } else {
          const facts = one.db
            .prepare('SELECT DISTINCT fact_id FROM fact_candidates ORDER BY fact_id')
            .pluck()
            .all() as string[];
          if (facts.length === 0) continue;
          const id = facts[Math.floor(gen.rnd() * facts.length)]!;
          const patch =
            gen.rnd() < 0.5
              ? { hidden: gen.rnd() < 0.5 }
              : { pinned: true, pinnedItemKey: `product:${Math.floor(gen.rnd() * 8)}` };
          for (const g of [one, batched]) setEditorial(g.db, id, patch);
        }
        expect(tables(batched.db), `seed ${seed}, step ${step}`).toEqual(tables(one.db));
      }
      expect(
        one.db.prepare(`SELECT COUNT(*) FROM fact_candidates WHERE status = 'superseded'`).pluck().get(),
      ).toBeGreaterThan(0);
      expect(one.db.prepare('SELECT COUNT(*) FROM qa WHERE stale = 1').pluck().get()).toBeGreaterThan(0);
    }
  });
});

const RECEIVED = '2026-02-01T12:00:00.000Z';

/**
 * `pool` with the answers to its first `count` requests held until all of them came; then
 * `allCame` runs and they are handed on together, in the order asked.
 */
function holdingFirstAnswers(pool: ExtractionPool, count: number, allCame: () => void): ExtractionPool {
  let asked = 0;
  const held: Array<() => void> = [];
  const arrived = () =>
    new Promise<void>((release) => {
      held.push(release);
      if (held.length === count) (allCame(), held.forEach((r) => r()));
    });
  const gate =
    <A extends unknown[], T>(ask: (...args: A) => Promise<T>) =>
    async (...args: A): Promise<T> => {
      if (asked++ >= count) return ask(...args);
      const answer = await ask(...args);
      await arrived();
      return answer;
    };
  return Object.assign(Object.create(pool) as ExtractionPool, {
    extract: gate(pool.extract),
    extractPending: gate(pool.extractPending),
    extractPendingText: gate(pool.extractPendingText),
  });
}

function page(i: number, version: number): IngestItem {
  const ld = {
    '@context': 'https://schema.org',
    '@type': 'Product',
    name: `Kettle ${i}`,
    sku: `SKU-${i}`,
    brand: { '@type': 'Brand', name: 'Acme' },
    offers: { '@type': 'Offer', price: `${10 + i}.${version}0`, priceCurrency: 'EUR' },
  };
  return {
    type: 'product',
    id: String(i),
    url: `https://shop.example/p/${i}`,
    checksum: 'sha256:' + (i * 10 + version).toString(16).padStart(64, '0'),
    html: `<html lang="en"><head><title>Kettle ${i}</title><script type="application/ld+json">${JSON.stringify(ld)}</script></head><body><main><h1>Kettle ${i}</h1><p>Kettle ${i} boils water.</p></main></body></html>`,
  };
}

function pending(db: Db, items: IngestItem[]): string[] {
  return writeRawItems(db, items, (i) => JSON.stringify(items[i]), {
    connectorId: 'conn_1',
    defaultLanguage: 'en',
    receivedAt: RECEIVED,
  }).flatMap((o) => (o.status === 'accepted' ? [o.rawContentId] : []));
}

describe('processRawItemsConcurrently (extraction in worker threads; runs the build: npm run build)', () => {
  it.each([
    ['this thread', false],
    ['the graph writer thread', true],
  ])(
    'writing in %s, makes the same graph and result as processRawItems, and skips a row updated while its batch was with the threads',
    async (_, threaded) => {
      const [inThread, inWorkers] = [graph(), graph()];
      const items = Array.from({ length: 30 }, (_, i) => page(i, 0));
      const broken = (db: Db) => db.prepare(`UPDATE raw_items SET body = '{"type":' WHERE item_id = '7'`).run();
      const a = pending(inThread.db, items);
      broken(inThread.db);
      const b = pending(inWorkers.db, items);
      broken(inWorkers.db);
      const expected = processRawItems(inThread.db, site, a, { now: RECEIVED, batchSize: 8 });
      const pool = createExtractionPool({ size: 2, workerUrl: extractWorkerUrl() });
      const writer = threaded ? createGraphWriter({ workerUrl: writeWorkerUrl() }) : undefined;
      try {
        const result = await processRawItemsConcurrently(inWorkers.db, site, b, {
          now: RECEIVED,
          batchSize: 8,
          pool,
          writer,
        });
        const withoutIds = (r: typeof result) => ({ ...r, failures: r.failures.map(({ rawContentId: _, ...f }) => f) });
        expect(withoutIds(result)).toEqual(withoutIds(expected));
        expect(result).toMatchObject({ processed: 29, failed: 1, failures: [{ itemKey: 'product:7' }] });
        expect(tables(inWorkers.db)).toEqual(tables(inThread.db));
        // With the writer thread, no batch was written by this thread's queue.
        expect(writeQueueOf(inWorkers.db).stats.writes).toBe(threaded ? 0 : 4);

        // Item 3 changes while the first batch (which holds it) is with the workers: that batch skips it, and the new version waits for its own job.
        const ids = pending(inWorkers.db, [page(3, 1), page(4, 1)]);
        const running = processRawItemsConcurrently(inWorkers.db, site, ids, { now: RECEIVED, pool, writer });
        const [newer] = pending(inWorkers.db, [page(3, 2)]);
        expect(await running).toMatchObject({ processed: 1, skipped: 1 });
        expect(inWorkers.db.prepare(`SELECT state FROM raw_items WHERE item_id = '3'`).pluck().get()).toBe('pending');
        expect(
          await processRawItemsConcurrently(inWorkers.db, site, [newer!], { now: RECEIVED, pool, writer }),
        ).toMatchObject({ processed: 1 });
        expect(
          inWorkers.db
            .prepare(`SELECT value FROM fact_candidates WHERE item_key = 'product:3' AND predicate = 'price'`)
            .pluck()
            .get(),
        ).toBe('13.2');
      } finally {
        await Promise.all([pool.close(), writer?.close()]);
      }
    },
  );

  it.each([
    ['this thread', false],
    ['the graph writer thread', true],
  ])(
    'writing in %s, two runs on one graph at once (two content.ingest jobs of a website) share its write queue and make the same graph and results as one after the other',
    async (_, threaded) => {
      const [sequential, together] = [graph(), graph()];
      const items = Array.from({ length: 24 }, (_, i) => page(i, 0));
      const [first, second] = [items.slice(0, 12), items.slice(12)];
      const expected = [
        processRawItems(sequential.db, site, pending(sequential.db, first), { now: RECEIVED, batchSize: 4 }),
        processRawItems(sequential.db, site, pending(sequential.db, second), { now: RECEIVED, batchSize: 4 }),
      ];
      const [a, b] = [pending(together.db, first), pending(together.db, second)];
      const queue = writeQueueOf(together.db);
      // A write of another job first, as a large batch would be: the runs' first batches are
      // extracted meanwhile and wait for the writer together. Their answers are held until both
      // came, then the write is submitted and they are handed on, so "meanwhile" does not depend
      // on how fast the worker is. (The writer thread's queue, in its thread, is not this one:
      // there the runs' batches are only written in submission order.)
      const pool = holdingFirstAnswers(
        createExtractionPool({ size: 1, workerUrl: extractWorkerUrl() }),
        2,
        () => void queue.write(1, () => undefined),
      );
      const writer = threaded ? createGraphWriter({ workerUrl: writeWorkerUrl() }) : undefined;
      try {
        const results = await Promise.all([
          processRawItemsConcurrently(together.db, site, a, { now: RECEIVED, batchSize: 4, pool, writer }),
          processRawItemsConcurrently(together.db, site, b, { now: RECEIVED, batchSize: 4, pool, writer }),
        ]);
        expect(results).toEqual(expected);
        expect(tables(together.db)).toEqual(tables(sequential.db));
        // The long write and six batches in fewer transactions: batches that waited at once were written together.
        expect(queue.stats.writes).toBe(threaded ? 1 : 7);
        if (!threaded) expect(queue.stats.transactions).toBeLessThan(6);
      } finally {
        await Promise.all([pool.close(), writer?.close()]);
      }
    },
  );

  it('refreshes the search documents of batches merged into one transaction once, at its end: one FTS5 segment, the documents of one batch a transaction', async () => {
    const [merged, apart] = [graph(), graph()];
    const items = Array.from({ length: 8 }, (_, i) => page(i, 0));
    const write = async (db: Db, together: boolean) => {
      const ids = pending(db, items);
      const queue = writeQueueOf(db);
      const run = (batch: string[]) => {
        const rows = graphStatements(db).pendingRaw.all(JSON.stringify(batch)) as RawRow[];
        const extracted = { rows, outcomes: extractRows(rows, site, []) };
        return queue.write(batch.length, () => writePendingBatch(db, site, batch, extracted, RECEIVED));
      };
      const batches = [ids.slice(0, 4), ids.slice(4)];
      if (together) await Promise.all(batches.map(run));
      else for (const batch of batches) await run(batch);
      return queue.stats;
    };
    expect(await write(merged.db, true)).toEqual({ writes: 2, transactions: 1 });
    expect(await write(apart.db, false)).toEqual({ writes: 2, transactions: 2 });
    // FTS5 flushes its pending terms into a segment at each write statement and at the commit: a refresh per batch made two.
    const segments = (db: Db) => db.prepare('SELECT count(DISTINCT segid) FROM search_fts_idx').pluck().get();
    expect(segments(merged.db)).toBe(1);
    expect(segments(apart.db)).toBe(2);
    expect(readIndexedDocuments(merged.db).length).toBeGreaterThan(8);
    expect(tables(merged.db)).toEqual(tables(apart.db));
  });

  it.each([
    ['this thread', false],
    ['the graph writer thread', true],
  ])(
    "writing in %s, a run gives the sources already stored the site's current trust, in its batch's transaction",
    async (_, threaded) => {
      const g = graph();
      const unverified = { ...site, verification: { method: null, state: 'pending' } } as const;
      processRawItems(g.db, unverified, pending(g.db, [page(1, 0), page(2, 0)]), { now: RECEIVED });
      const trusts = () => g.db.prepare('SELECT DISTINCT trust FROM sources').pluck().all() as number[];
      expect(trusts()).toEqual([trustScore(null, 'pending')]);
      // The site is verified since: the next run, about another item, re-trusts the two stored sources with its own.
      const pool = createExtractionPool({ size: 1, workerUrl: extractWorkerUrl() });
      const writer = threaded ? createGraphWriter({ workerUrl: writeWorkerUrl() }) : undefined;
      try {
        expect(
          await processRawItemsConcurrently(g.db, site, pending(g.db, [page(3, 0)]), { now: RECEIVED, pool, writer }),
        ).toMatchObject({ processed: 1 });
      } finally {
        await Promise.all([pool.close(), writer?.close()]);
      }
      expect(trustScore('dns_txt', 'verified')).not.toBe(trustScore(null, 'pending'));
      expect(trusts()).toEqual([trustScore('dns_txt', 'verified')]);
      expect(g.db.prepare('SELECT count(*) FROM sources').pluck().get()).toBe(3);
    },
  );

  it('extracts in its own thread when a worker fails', async () => {
    const [inThread, fallback] = [graph(), graph()];
    const items = Array.from({ length: 6 }, (_, i) => page(i, 0));
    processRawItems(inThread.db, site, pending(inThread.db, items), { now: RECEIVED, batchSize: 4 });
    const pool = createExtractionPool({ size: 1, workerUrl: new URL('./no-such-worker.js', extractWorkerUrl()) });
    try {
      expect(
        await processRawItemsConcurrently(fallback.db, site, pending(fallback.db, items), {
          now: RECEIVED,
          batchSize: 4,
          pool,
        }),
      ).toMatchObject({ processed: 6, failed: 0 });
      expect(tables(fallback.db)).toEqual(tables(inThread.db));
    } finally {
      await pool.close();
    }
  });
});

describe('processRawItemsConcurrently with the inbox (runs the build: npm run build)', () => {
  /** Accepts the items into the graph's inbox, as an ingest request does; their raw content ids. */
  const accept = (g: TempGraph, inbox: Db, items: IngestItem[]): string[] =>
    writeInboxItems(g.db, inbox, items, (i) => JSON.stringify(items[i]), {
      connectorId: 'conn_1',
      defaultLanguage: 'en',
      receivedAt: RECEIVED,
    }).flatMap((o) => (o.status === 'accepted' ? [o.rawContentId] : []));
  const inboxOf = (g: TempGraph): Db => {
    const inbox = openDatabase(g.file.replace(/\.sqlite$/, '.inbox.sqlite'), INBOX_DB_OPTIONS);
    inboxes.push(inbox);
    return inbox;
  };
  const inboxes: Db[] = [];
  afterEach(() => {
    for (const db of inboxes.splice(0)) db.close();
  });
  const inboxCount = (inbox: Db) => inbox.prepare('SELECT COUNT(*) FROM inbox_items').pluck().get();

  it.each([
    ['this thread', false],
    ['the graph writer thread', true],
  ])(
    'writing in %s, moves each batch from the inbox with its write: the same graph as moving first, and the rows leave the inbox once the graph holds them',
    async (_, threaded) => {
      const [movedFirst, withBatches] = [graph(), graph()];
      const items = Array.from({ length: 20 }, (_, i) => page(i, 0));
      const first = inboxOf(movedFirst);
      const a = accept(movedFirst, first, items);
      await moveFromInbox(movedFirst.db, first, { rawContentIds: a });
      const expected = processRawItems(movedFirst.db, site, a, { now: RECEIVED, batchSize: 8 });

      const inbox = inboxOf(withBatches);
      const b = accept(withBatches, inbox, items);
      // Item 3 was moved already (as a delete or a snapshot moves rows): read from raw_items instead.
      await moveFromInbox(withBatches.db, inbox, { itemIds: ['3'] });
      const pool = createExtractionPool({ size: 2, workerUrl: extractWorkerUrl() });
      const writer = threaded ? createGraphWriter({ workerUrl: writeWorkerUrl() }) : undefined;
      try {
        const result = await processRawItemsConcurrently(withBatches.db, site, b, {
          now: RECEIVED,
          batchSize: 8,
          pool,
          writer,
          inbox,
        });
        const withoutIds = (r: typeof result) => ({ ...r, failures: r.failures.map(({ rawContentId: _, ...f }) => f) });
        expect(withoutIds(result)).toEqual(withoutIds(expected));
        expect(result).toMatchObject({ processed: 20, failed: 0 });
        expect(tables(withBatches.db)).toEqual(tables(movedFirst.db));
        expect(inboxCount(inbox)).toBe(19);
        expect(await forgetMovedInboxRows(withBatches.db, inbox, b)).toBe(19);
        expect(inboxCount(inbox)).toBe(0);

        // Two versions of item 4 wait in the inbox; the newer one's job runs first. The older
        // one's batch then moves nothing and writes nothing, and its row leaves the inbox.
        const [older] = accept(withBatches, inbox, [page(4, 1)]);
        const [newer] = accept(withBatches, inbox, [page(4, 2)]);
        const run = (ids: string[]) =>
          processRawItemsConcurrently(withBatches.db, site, ids, { now: RECEIVED, pool, writer, inbox });
        expect(await run([newer!])).toMatchObject({ processed: 1 });
        expect(await run([older!])).toMatchObject({ processed: 0 });
        expect(
          withBatches.db
            .prepare(`SELECT value FROM fact_candidates WHERE item_key = 'product:4' AND predicate = 'price'`)
            .pluck()
            .get(),
        ).toBe('14.2');
        expect(withBatches.db.prepare(`SELECT raw_content_id FROM raw_items WHERE item_id = '4'`).pluck().get()).toBe(
          newer,
        );
        expect(await forgetMovedInboxRows(withBatches.db, inbox, [older!, newer!])).toBe(2);
        expect(inboxCount(inbox)).toBe(0);
      } finally {
        await Promise.all([pool.close(), writer?.close()]);
      }
    },
  );

  it("keeps in the inbox the rows of a batch whose write failed, for the job's next attempt", async () => {
    const g = graph();
    const inbox = inboxOf(g);
    const ids = accept(g, inbox, [page(1, 0), page(2, 0)]);
    const pool = createExtractionPool({ size: 1, workerUrl: extractWorkerUrl() });
    const writer = createGraphWriter({ workerUrl: writeWorkerUrl() });
    // A table the batch writes is gone: its transaction fails and rolls back, the moves with it.
    g.db.exec('DROP TABLE chunks');
    try {
      await expect(
        processRawItemsConcurrently(g.db, site, ids, { now: RECEIVED, pool, writer, inbox }),
      ).rejects.toThrow();
      expect(g.db.prepare('SELECT COUNT(*) FROM raw_items').pluck().get()).toBe(0);
      expect(await forgetMovedInboxRows(g.db, inbox, ids)).toBe(0);
      expect(inboxCount(inbox)).toBe(2);
    } finally {
      await Promise.all([pool.close(), writer.close()]);
    }
  });
});

describe('processRawItemsConcurrently with the graph writer thread (runs the build: npm run build)', () => {
  it("starts its thread when asked (the daemon's warm start) or at the first write, and again after it ended", async () => {
    const g = graph();
    const pool = createExtractionPool({ size: 1, workerUrl: extractWorkerUrl() });
    const writer = createGraphWriter({ workerUrl: writeWorkerUrl() });
    try {
      expect(writer.running).toBe(false);
      writer.start();
      expect(writer.running).toBe(true);
      await writer.close();
      expect(writer.running).toBe(false);
      expect(
        await processRawItemsConcurrently(g.db, site, pending(g.db, [page(1, 0)]), { now: RECEIVED, pool, writer }),
      ).toMatchObject({ processed: 1 });
      expect(writer.running).toBe(true);
    } finally {
      await Promise.all([pool.close(), writer.close()]);
    }
  });

  it('ends its thread on request only when no write is waiting for an answer (a publish makes room so); the next write starts it again', async () => {
    const g = graph();
    const pool = createExtractionPool({ size: 1, workerUrl: extractWorkerUrl() });
    const writer = createGraphWriter({ workerUrl: writeWorkerUrl() });
    try {
      const batch = pending(g.db, [page(1, 0)]);
      const extracted = await pool.extractPendingText(site, [], g.file, batch);
      const writing = writer.write({ file: g.file, turn: writeTurnOf(g.db), site, batch, extracted, now: RECEIVED });
      expect(await writer.endIdle()).toBe(false);
      expect(writer.running).toBe(true);
      expect(await writing).toMatchObject({ processed: 1 });
      expect(await writer.endIdle()).toBe(true);
      expect(writer.running).toBe(false);
      expect(
        await processRawItemsConcurrently(g.db, site, pending(g.db, [page(2, 0)]), { now: RECEIVED, pool, writer }),
      ).toMatchObject({ processed: 1 });
      expect(writer.running).toBe(true);
    } finally {
      await Promise.all([pool.close(), writer.close()]);
    }
  });

  it("reads a batch's extraction when its write's turn comes: a garbled one fails alone, after the write before it", async () => {
    const g = graph();
    const pool = createExtractionPool({ size: 1, workerUrl: extractWorkerUrl() });
    const writer = createGraphWriter({ workerUrl: writeWorkerUrl() });
    try {
      const [first, second] = [pending(g.db, [page(1, 0)]), pending(g.db, [page(2, 0)])];
      const extracted = await pool.extractPendingText(site, [], g.file, first);
      const settled: string[] = [];
      const request = { file: g.file, turn: writeTurnOf(g.db), site, now: RECEIVED };
      const good = writer.write({ ...request, batch: first, extracted }).then(() => settled.push('first written'));
      const garbled = writer
        .write({ ...request, batch: second, extracted: new TextEncoder().encode('{"rows": [') })
        .catch((error: Error) => settled.push(`second failed: ${error.message}`));
      await Promise.all([good, garbled]);
      expect(settled).toEqual(['first written', expect.stringMatching(/^second failed: .*JSON/)]);
      expect(g.db.prepare(`SELECT item_id, state FROM raw_items ORDER BY item_id`).raw().all()).toEqual([
        ['1', 'processed'],
        ['2', 'pending'],
      ]);
    } finally {
      await Promise.all([pool.close(), writer.close()]);
    }
  });

  it('started and never written to, does not keep the process up (a listener added after unref() refs a worker again)', async () => {
    const graphWriter = new URL('../../../dist/ingest/graph/graph-writer.js', import.meta.url).href;
    // A file, not --eval: a worker inherits the process's flags, and --input-type fails it.
    const temp = makeTempDir('nodectl-writer-exit-');
    try {
      const script = join(temp.dir, 'start-writer.mjs');
      writeFileSync(
        script,
        `const { createGraphWriter } = await import(${JSON.stringify(graphWriter)});
        const writer = createGraphWriter();
        writer.start();
        setTimeout(() => console.log(writer.running ? 'running' : 'ended'), 500);`,
      );
      const run = await execa('node', [script], { timeout: 10_000, reject: false });
      expect(run.stdout).toBe('running');
      expect(run.timedOut).toBe(false);
      expect(run.exitCode).toBe(0);
    } finally {
      temp.cleanup();
    }
  });

  it('writes in its own thread the batches of a writer thread that stopped', async () => {
    const [inThread, fallback] = [graph(), graph()];
    const items = Array.from({ length: 6 }, (_, i) => page(i, 0));
    processRawItems(inThread.db, site, pending(inThread.db, items), { now: RECEIVED, batchSize: 4 });
    const pool = createExtractionPool({ size: 1, workerUrl: extractWorkerUrl() });
    const writer = createGraphWriter({ workerUrl: new URL('./no-such-worker.js', writeWorkerUrl()) });
    try {
      expect(
        await processRawItemsConcurrently(fallback.db, site, pending(fallback.db, items), {
          now: RECEIVED,
          batchSize: 4,
          pool,
          writer,
        }),
      ).toMatchObject({ processed: 6, failed: 0 });
      expect(tables(fallback.db)).toEqual(tables(inThread.db));
      expect(writeQueueOf(fallback.db).stats.writes).toBe(2);
    } finally {
      await Promise.all([pool.close(), writer.close()]);
    }
  });

  it("rejects the run with the writer thread's error when a batch cannot be written", async () => {
    const g = graph();
    const ids = pending(g.db, [page(1, 0), page(2, 0)]);
    // A trigger that fails every commit of processed rows: the write fails whole, in the writer thread.
    g.db.exec(
      `CREATE TRIGGER refuse_processed BEFORE UPDATE OF state ON raw_items WHEN NEW.state = 'processed' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`,
    );
    const pool = createExtractionPool({ size: 1, workerUrl: extractWorkerUrl() });
    const writer = createGraphWriter({ workerUrl: writeWorkerUrl() });
    try {
      await expect(processRawItemsConcurrently(g.db, site, ids, { now: RECEIVED, pool, writer })).rejects.toThrow(
        'refused by the test',
      );
      expect(g.db.prepare(`SELECT state FROM raw_items ORDER BY item_id`).pluck().all()).toEqual([
        'pending',
        'pending',
      ]);
      expect(g.db.prepare('SELECT count(*) FROM item_contributions').pluck().get()).toBe(0);
    } finally {
      await Promise.all([pool.close(), writer.close()]);
    }
  });
});

describe('writeRawItems', () => {
  it('compares an item given twice in one batch with its first version, and skips an unchanged one with one lookup for the batch', () => {
    const g = graph();
    const out = writeRawItems(g.db, [page(1, 0), page(1, 0), page(1, 1), page(2, 0)], (i) => String(i), {
      connectorId: 'c',
      defaultLanguage: 'en',
      receivedAt: RECEIVED,
    });
    expect(
      out.map(
        (o) =>
          o.status +
          (o.status === 'accepted' ? (o.update ? ':update' : ':new') : o.status === 'skipped' ? `:${o.reason}` : ''),
      ),
    ).toEqual(['accepted:new', 'skipped:unchanged_checksum', 'accepted:update', 'accepted:new']);
    expect(g.db.prepare(`SELECT item_id, checksum, body FROM raw_items ORDER BY item_id`).raw().all()).toEqual([
      ['1', page(1, 1).checksum, '2'],
      ['2', page(2, 0).checksum, '3'],
    ]);
    g.db.prepare(`UPDATE raw_items SET state = 'tombstoned' WHERE item_id = '2'`).run();
    const again = writeRawItems(g.db, [page(1, 1), page(2, 5)], (i) => String(i), {
      connectorId: 'c',
      defaultLanguage: 'en',
      receivedAt: RECEIVED,
    });
    expect(again).toEqual([
      { status: 'skipped', reason: 'unchanged_checksum' },
      { status: 'skipped', reason: 'tombstoned' },
    ]);
  });
});
