import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyContribution, applyContributions } from '../../../src/ingest/graph/apply-contribution.js';
import { setEditorial } from '../../../src/ingest/graph/editorial.js';
import { processRawItems } from '../../../src/ingest/graph/process-raw-items.js';
import { writeRawItems } from '../../../src/ingest/graph/raw-items.js';
import { compactGraph, removeItem } from '../../../src/ingest/graph/remove-item.js';
import { emptySearchTouched, rebuildSearchDocs, refreshSearchDocs } from '../../../src/ingest/graph/search-docs.js';
import { searchKnowledge } from '../../../src/output/knowledge/search.js';
import type { Db } from '../../../src/platform/storage/sqlite.js';
import { contribution, entity, fact, ref, site, tempGraph, type TempGraph } from '../../ingest/graph/helpers.js';
import { readIndexedDocuments } from './search-helpers.js';

let g: TempGraph;
beforeEach(() => (g = tempGraph()));
afterEach(() => g.cleanup());

/**
 * The index as the writers left it must equal one rebuilt from the record tables (rebuilt inside
 * a savepoint that is rolled back): the same documents under the same rowids (each its record's),
 * each with the same terms, and none left over from a record that is gone.
 */
function expectIndexCurrent(db: Db, step: string): void {
  const kept = readIndexedDocuments(db);
  expect(
    kept.filter((d) => d.recordId === null),
    `${step}: documents of records that are gone`,
  ).toEqual([]);
  db.exec('SAVEPOINT rebuild_probe');
  try {
    rebuildSearchDocs(db);
    expect(kept, step).toEqual(readIndexedDocuments(db));
  } finally {
    db.exec('ROLLBACK TO rebuild_probe');
    db.exec('RELEASE rebuild_probe');
  }
  expect(db.prepare(`SELECT COUNT(*) FROM search_stale`).pluck().get(), `${step}: queue emptied`).toBe(0);
  expect(
    db.prepare(`INSERT INTO search_fts (search_fts, rank) VALUES ('integrity-check', 0)`).run(),
    step,
  ).toBeDefined();
}

describe('search index upkeep by the graph writers', () => {
  /**
   * Item i's page: its chair (a material fact), maybe the shared Woodworks
   * entity, a founded fact about Woodworks that items compete for, chunks.
   */
  function randomItems(seed: number) {
    const next = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
    const words = ['alder', 'birch', 'cedar', 'maple', 'oak', 'pine', 'rowan', 'yew'];
    const shared = ref('Organization', 'woodworks');
    const make = (i: number) => {
      const url = `https://shop.example/p/${i}`;
      const own = ref('Product', url);
      return contribution(`product:${i}`, url, {
        primaryEntity: own,
        entities: [
          entity(own, `${words[next(8)]} chair ${i}`),
          ...(next(2) === 0 ? [entity(shared, `Woodworks ${words[next(8)]}`)] : []),
        ],
        facts: [
          fact(own, 'material', words[next(8)]!, {
            subjectName: `chair ${i}`,
            provenanceMethod: next(2) === 0 ? 'cms_field' : 'text_extraction',
          }),
          fact(
            shared,
            'founded',
            { values: [words[next(8)], words[next(8)]] },
            { subjectName: 'Woodworks', confidence: next(10) / 10 },
          ),
        ],
        chunks: Array.from({ length: next(3) }, (_, position) => ({
          position,
          language: 'en',
          text: `${words[next(8)]} ${words[next(8)]} grain`,
          headingPath: [words[next(8)]!],
          mentions: [own],
        })),
      });
    };
    return { next, make };
  }

  it('after any sequence of item writes, removals, pins and hides the index equals a rebuild from the records', () => {
    const { next, make } = randomItems(11);
    for (let step = 0; step < 120; step++) {
      const i = next(12);
      const key = `product:${i}`;
      const op = next(10);
      if (op < 6) {
        applyContribution(g.db, site, make(i));
      } else if (op < 8) {
        removeItem(g.db, site, key);
      } else {
        const factIds = g.db
          .prepare(`SELECT DISTINCT fact_id FROM fact_candidates ORDER BY fact_id`)
          .pluck()
          .all() as string[];
        if (factIds.length > 0)
          setEditorial(
            g.db,
            factIds[next(factIds.length)]!,
            op === 8 ? { pinned: next(2) === 0 } : { hidden: next(2) === 0 },
          );
      }
      expectIndexCurrent(g.db, `step ${step} (op ${op} on ${key})`);
    }
    // An erasure merges the index and VACUUMs the file: the documents still name their records
    // (SQLite's VACUUM keeps these rowids today; compactGraph rebuilds if it did not), the deletes having left gaps.
    for (let i = 0; i < 12; i += 2) removeItem(g.db, site, `product:${i}`, { erase: true });
    const chairs = g.db.prepare(`SELECT id, name FROM entities WHERE name LIKE '%chair%' ORDER BY id`).all() as Array<{
      id: string;
      name: string;
    }>;
    expect(chairs.length).toBeGreaterThan(0);
    expectIndexCurrent(g.db, 'after erasures and VACUUM');
    expect(
      searchKnowledge(g.db, { query: 'chair', limit: 50, kind: 'entity' })
        .map((h) => ({ id: h.id, name: h.title }))
        .sort((a, b) => a.id.localeCompare(b.id)),
    ).toEqual(chairs);
  });

  it('a VACUUM that renumbers the record tables (SQLite only promises rowids of INTEGER PRIMARY KEY tables) is followed by a rebuild of the index', () => {
    const { make } = randomItems(5);
    for (let i = 0; i < 8; i++) applyContribution(g.db, site, make(i));
    removeItem(g.db, site, 'product:3');
    const renumbering = (db: Db) => {
      db.exec('VACUUM');
      for (const table of ['chunks', 'entities', 'fact_candidates'])
        db.exec(`UPDATE ${table} SET rowid = rowid + 1000`);
    };
    compactGraph(g.db, { vacuum: renumbering });
    expectIndexCurrent(g.db, 'after a renumbering VACUUM');
    const chairs = g.db
      .prepare(`SELECT id FROM entities WHERE name LIKE '%chair%' ORDER BY id`)
      .pluck()
      .all() as string[];
    expect(chairs.length).toBeGreaterThan(0);
    expect(
      searchKnowledge(g.db, { query: 'chair', limit: 50, kind: 'entity' })
        .map((h) => h.id)
        .sort(),
    ).toEqual(chairs);
  });

  it('batches refreshed once each (an item twice in a batch, a survivor beaten and then removed in the same batch) leave the index a rebuild would make', () => {
    const { next, make } = randomItems(29);
    const batch = (items: ReturnType<typeof make>[], removed: string[] = []) =>
      g.db.transaction(() => {
        const touched = emptySearchTouched();
        applyContributions(g.db, site, items, touched);
        for (const key of removed) removeItem(g.db, site, key);
        refreshSearchDocs(g.db, touched);
      })();
    const founded = (i: number, provenanceMethod: 'cms_field' | 'llm_inferred', value: string) =>
      contribution(`product:${i}`, `https://shop.example/p/${i}`, {
        facts: [
          fact(ref('Organization', 'woodworks'), 'founded', value, { subjectName: 'Woodworks', provenanceMethod }),
        ],
      });
    // product:1's candidate survives; in one batch it loses to product:2's (the batch's first run: an
    // item given twice splits the batch), and is deleted when product:1 comes again (the second run).
    // product:3's fact after it keeps the rowid of product:1's from being taken again.
    batch([
      founded(1, 'llm_inferred', 'early'),
      contribution('product:3', 'https://shop.example/p/3', { facts: [fact(ref('Product', 'p3'), 'material', 'oak')] }),
    ]);
    batch([founded(2, 'cms_field', 'late'), founded(2, 'cms_field', 'later'), founded(1, 'llm_inferred', 'again')]);
    expectIndexCurrent(g.db, 'survivor beaten then removed');
    expect(searchKnowledge(g.db, { query: 'early', limit: 5 })).toEqual([]);
    expect(searchKnowledge(g.db, { query: 'later', limit: 5 }).map((h) => h.kind)).toEqual(['fact']);
    for (let round = 0; round < 40; round++) {
      const items = Array.from({ length: 1 + next(6) }, () => make(next(10)));
      batch(items, next(3) === 0 ? [`product:${next(10)}`] : []);
      expectIndexCurrent(g.db, `round ${round}`);
    }
  });

  it('content.ingest refreshes once per batch, and a failed item leaves its earlier records indexed', () => {
    const item = (id: string, title: string, text: string, version = '0') => ({
      type: 'page',
      id,
      url: `https://shop.example/${id}`,
      text,
      title,
      checksum: 'sha256:' + (version + id).padStart(64, '0'),
    });
    const write = (items: ReturnType<typeof item>[], bodies?: (i: number) => string) =>
      writeRawItems(g.db, items as never, bodies ?? ((i) => JSON.stringify(items[i])), {
        connectorId: 'conn_test',
        defaultLanguage: 'en',
        receivedAt: '2026-01-01T00:00:00Z',
      }).map((o) => (o as { rawContentId: string }).rawContentId);
    const first = write([
      item('a1', 'Walnut desk', 'A walnut desk with drawers.'),
      item('a2', 'Oak shelf', 'An oak shelf for books.'),
    ]);
    expect(processRawItems(g.db, site, first, { now: '2026-01-01T00:00:00Z', batchSize: 2 })).toMatchObject({
      processed: 2,
      failed: 0,
    });
    expect(searchKnowledge(g.db, { query: 'walnut', limit: 10 }).length).toBeGreaterThan(0);
    // An update whose stored body is unreadable fails; the item's earlier records stay, indexed.
    const broken = write([item('a1', 'Walnut desk v2', 'changed', '1')], () => '{not json');
    expect(processRawItems(g.db, site, broken, { now: '2026-01-01T00:01:00Z' })).toMatchObject({ failed: 1 });
    expect(searchKnowledge(g.db, { query: 'walnut drawers', limit: 10 }).map((h) => h.kind)).toContain('chunk');
    expectIndexCurrent(g.db, 'after a failed item');
  });
});
