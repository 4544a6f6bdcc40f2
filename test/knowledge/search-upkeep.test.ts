import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyContribution } from '../../src/graph/apply-contribution.js';
import { setEditorial } from '../../src/graph/editorial.js';
import { processRawItems } from '../../src/graph/process-raw-items.js';
import { writeRawItems } from '../../src/graph/raw-items.js';
import { removeItem } from '../../src/graph/remove-item.js';
import { ftsRowidSql, rebuildSearchDocs } from '../../src/graph/search-docs.js';
import { searchKnowledge } from '../../src/knowledge/search.js';
import type { Db } from '../../src/storage/sqlite.js';
import { contribution, entity, fact, ref, site, tempGraph, type TempGraph } from '../graph/helpers.js';

let g: TempGraph;
beforeEach(() => (g = tempGraph()));
afterEach(() => g.cleanup());

/**
 * Every search document and what the index holds for it (search_fts is contentless: its terms,
 * read through fts5vocab as term, column and offset), by record id.
 */
function readIndex(db: Db): unknown[] {
  db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_terms USING fts5vocab(main, search_fts, instance)`);
  return db.prepare(`SELECT d.record_id, d.kind, d.entity_id, (SELECT json_group_array(json_array(t.col, t.offset, t.term)) FROM (SELECT * FROM temp.search_terms t WHERE t.doc = ${ftsRowidSql('d')} ORDER BY t.col, t.offset, t.term) t) AS terms
    FROM search_docs d ORDER BY d.record_id`).all();
}

/** The index as the writers left it must equal one rebuilt from the record tables (rebuilt inside a savepoint that is rolled back). */
function expectIndexCurrent(db: Db, step: string): void {
  const kept = readIndex(db);
  db.exec('SAVEPOINT rebuild_probe');
  try {
    rebuildSearchDocs(db);
    expect(kept, step).toEqual(readIndex(db));
  } finally {
    db.exec('ROLLBACK TO rebuild_probe');
    db.exec('RELEASE rebuild_probe');
  }
  expect(db.prepare(`SELECT COUNT(*) FROM search_fts`).pluck().get(), `${step}: FTS rows`).toBe(kept.length);
}

describe('search index upkeep by the graph writers', () => {
  it('after any sequence of item writes, removals, pins and hides the index equals a rebuild from the records', () => {
    let seed = 11;
    const next = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
    const words = ['alder', 'birch', 'cedar', 'maple', 'oak', 'pine', 'rowan', 'yew'];
    const shared = ref('Organization', 'woodworks');
    for (let step = 0; step < 120; step++) {
      const i = next(12);
      const key = `product:${i}`;
      const url = `https://shop.example/p/${i}`;
      const own = ref('Product', url);
      const op = next(10);
      if (op < 6) {
        applyContribution(g.db, site, contribution(key, url, {
          primaryEntity: own,
          entities: [entity(own, `${words[next(8)]} chair ${i}`), ...(next(2) === 0 ? [entity(shared, `Woodworks ${words[next(8)]}`)] : [])],
          facts: [
            fact(own, 'material', words[next(8)]!, { subjectName: `chair ${i}`, provenanceMethod: next(2) === 0 ? 'cms_field' : 'text_extraction' }),
            fact(shared, 'founded', { values: [words[next(8)], words[next(8)]] }, { subjectName: 'Woodworks', confidence: next(10) / 10 }),
          ],
          chunks: Array.from({ length: next(3) }, (_, position) => ({ position, language: 'en', text: `${words[next(8)]} ${words[next(8)]} grain`, headingPath: [words[next(8)]!], mentions: [own] })),
        }));
      } else if (op < 8) {
        removeItem(g.db, site, key);
      } else {
        const factIds = g.db.prepare(`SELECT DISTINCT fact_id FROM fact_candidates ORDER BY fact_id`).pluck().all() as string[];
        if (factIds.length > 0) setEditorial(g.db, factIds[next(factIds.length)]!, op === 8 ? { pinned: next(2) === 0 } : { hidden: next(2) === 0 });
      }
      expectIndexCurrent(g.db, `step ${step} (op ${op} on ${key})`);
    }
    // An erasure merges the index and VACUUMs the file: the documents still name their records.
    for (let i = 0; i < 12; i++) removeItem(g.db, site, `product:${i}`, { erase: true });
    expectIndexCurrent(g.db, 'after erasures and VACUUM');
  });

  it('content.ingest refreshes once per batch, and a failed item leaves its earlier records indexed', () => {
    const item = (id: string, title: string, text: string, version = '0') => ({ type: 'page', id, url: `https://shop.example/${id}`, text, title, checksum: 'sha256:' + (version + id).padStart(64, '0') });
    const write = (items: ReturnType<typeof item>[], bodies?: (i: number) => string) =>
      writeRawItems(g.db, items as never, bodies ?? ((i) => JSON.stringify(items[i])), { connectorId: 'conn_test', defaultLanguage: 'en', receivedAt: '2026-01-01T00:00:00Z' }).map((o) => (o as { rawContentId: string }).rawContentId);
    const first = write([item('a1', 'Walnut desk', 'A walnut desk with drawers.'), item('a2', 'Oak shelf', 'An oak shelf for books.')]);
    expect(processRawItems(g.db, site, first, { now: '2026-01-01T00:00:00Z', batchSize: 2 })).toMatchObject({ processed: 2, failed: 0 });
    expect(searchKnowledge(g.db, { query: 'walnut', limit: 10 }).length).toBeGreaterThan(0);
    // An update whose stored body is unreadable fails; the item's earlier records stay, indexed.
    const broken = write([item('a1', 'Walnut desk v2', 'changed', '1')], () => '{not json');
    expect(processRawItems(g.db, site, broken, { now: '2026-01-01T00:01:00Z' })).toMatchObject({ failed: 1 });
    expect(searchKnowledge(g.db, { query: 'walnut drawers', limit: 10 }).map((h) => h.kind)).toContain('chunk');
    expectIndexCurrent(g.db, 'after a failed item');
  });
});
