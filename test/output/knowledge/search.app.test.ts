import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyContribution } from '../../../src/ingest/graph/apply-contribution.js';
import { setEditorial } from '../../../src/ingest/graph/editorial.js';
import { removeItem } from '../../../src/ingest/graph/remove-item.js';
import { GRAPH_DB_OPTIONS } from '../../../src/ingest/graph/schema.js';
import { ROWID_RANGE } from '../../../src/ingest/graph/search-docs.js';
import { buildMatchExpression, splitQuery } from '../../../src/output/knowledge/search-query.js';
import { searchKnowledge, type SearchKind } from '../../../src/output/knowledge/search.js';
import { openDatabase, type Db } from '../../../src/platform/storage/sqlite.js';
import { PROJECT_ROOT } from '../../helpers/paths.js';
import { contribution, entity, fact, ref, site, tempGraph, type TempGraph } from '../../ingest/graph/helpers.js';
import { readIndexedDocuments } from './search-helpers.js';

let g: TempGraph;
beforeEach(() => (g = tempGraph()));
afterEach(() => g.cleanup());

const ids = (db: Db, query: string, kind?: SearchKind) =>
  searchKnowledge(db, { query, limit: 100, ...(kind ? { kind } : {}) }).map((h) => h.id);
const grinder = ref('Product', 'https://shop.example/grinder');
const kettle = ref('Product', 'https://shop.example/kettle');

/** A grinder page (entity, facts, a chunk) and a kettle page whose facts and text mention the grinder. */
function seedShop(db: Db): void {
  applyContribution(
    db,
    site,
    contribution('product:1', 'https://shop.example/grinder', {
      primaryEntity: grinder,
      entities: [entity(grinder, 'Hand Grinder')],
      facts: [
        fact(grinder, 'price', 259, { display: '259.00 EUR', subjectName: 'Hand Grinder' }),
        fact(grinder, 'material', 'Café-brown walnut', { subjectName: 'Hand Grinder' }),
      ],
      chunks: [
        {
          position: 0,
          language: 'en',
          text: 'The quick brown burr turns smoothly.',
          headingPath: ['Details'],
          mentions: [grinder],
        },
      ],
    }),
  );
  applyContribution(
    db,
    site,
    contribution('product:2', 'https://shop.example/kettle', {
      primaryEntity: kettle,
      entities: [entity(kettle, 'Steel Kettle')],
      facts: [fact(kettle, 'pairs_with', 'hand grinder', { subjectName: 'Steel Kettle' })],
      chunks: [
        {
          position: 0,
          language: 'en',
          text: 'Pour slowly; a hand grinder gives the best brown coffee. Quick tip: <b>preheat</b> & wait.',
          headingPath: [],
          mentions: [kettle],
        },
      ],
    }),
  );
}

describe('knowledge search over the graph (FTS5 kept current by the graph writers)', () => {
  it('ranks names over values over chunk text, with snippets marking the matched terms as safe HTML (each hit its own snippet: FTS5 ignored a REAL-bound rowid and gave every hit the first one)', () => {
    seedShop(g.db);
    const hits = searchKnowledge(g.db, { query: 'hand grinder', limit: 10 });
    expect(hits.map((h) => h.kind)).toEqual(['entity', 'fact', 'fact', 'fact', 'chunk']);
    expect(hits[0]).toMatchObject({
      kind: 'entity',
      title: 'Hand Grinder',
      language: 'en',
      source_url: 'https://shop.example/grinder',
      snippet: '<mark>Hand</mark> <mark>Grinder</mark>',
    });
    // The fact whose value holds the words outranks the grinder's own facts, which hold them only in the subject.
    expect(hits[1]).toMatchObject({
      kind: 'fact',
      title: 'Steel Kettle: pairs with',
      snippet: '<mark>hand</mark> <mark>grinder</mark>',
    });
    expect(hits[1]!.entity_id).toMatch(/^entity_/);
    expect(hits.every((h, i) => i === 0 || h.score <= hits[i - 1]!.score)).toBe(true);
    const chunk = searchKnowledge(g.db, { query: 'preheat', limit: 1 })[0]!;
    // The title is plain text: a chunk's first line, cut at 80 characters.
    expect(chunk).toMatchObject({
      kind: 'chunk',
      title: 'Pour slowly; a hand grinder gives the best brown coffee. Quick tip: <b>preheat<…',
      source_url: 'https://shop.example/kettle',
    });
    expect(chunk.snippet).toBe(
      'Pour slowly; a hand grinder gives the best brown coffee. Quick tip: &lt;b&gt;<mark>preheat</mark>&lt;/b&gt; &amp; wait.',
    );
  });

  it('folds case and diacritics, matches the last term as a prefix while it is typed, and keeps quoted phrases together', () => {
    seedShop(g.db);
    expect(ids(g.db, 'CAFE')).toHaveLength(1);
    expect(ids(g.db, 'café')).toEqual(ids(g.db, 'cafe'));
    expect(ids(g.db, 'grind')).toHaveLength(5);
    expect(ids(g.db, 'grind ')).toEqual([]); // a trailing space ends the word
    expect(ids(g.db, 'grind walnut')).toEqual([]); // only the last term is a prefix
    expect(ids(g.db, 'brown quick', 'chunk')).toHaveLength(2);
    expect(ids(g.db, '"quick brown"', 'chunk')).toHaveLength(1);
    expect(ids(g.db, '"brown quick"')).toEqual([]);
  });

  it('never hands user text to FTS5 as syntax: operators, column filters, stars and stray quotes are words or separators (a query like a" OR b* used to be a syntax error)', () => {
    seedShop(g.db);
    expect(buildMatchExpression('a" OR bcd*')).toBe('"a" "OR" "bcd*"*');
    expect(buildMatchExpression('a" OR bc*')).toBe('"a" "OR" "bc*"'); // a last word under 3 characters matches whole
    expect(splitQuery('say "hello  world" now "open')).toEqual([
      { text: 'say', phrase: false },
      { text: 'hello world', phrase: true },
      { text: 'now', phrase: false },
      { text: 'open', phrase: false },
    ]);
    expect(buildMatchExpression('*** " ( ) :')).toBeUndefined();
    const hostile = [
      'a" OR b*',
      'NEAR(grinder kettle)',
      'name:grinder',
      '-grinder',
      'grinder NOT kettle',
      '(',
      ')',
      '^grinder',
      '"',
      '""',
      '"""',
      '*',
      'grinder +',
      '{name}: x',
      'x AND',
      'OR',
      "'",
      '\\',
      '\u0000',
      '🙂 grinder',
    ];
    for (const query of hostile) expect(() => searchKnowledge(g.db, { query, limit: 5 }), query).not.toThrow();
    expect(ids(g.db, 'name:grinder')).toEqual([]); // a phrase "name grinder", not a column filter
    expect(ids(g.db, 'grinder NOT kettle')).toEqual([]); // three words that must all occur
    const alphabet = [
      'a',
      'grinder',
      '"',
      '*',
      '(',
      ')',
      ':',
      '-',
      '^',
      'OR',
      'NOT',
      'AND',
      'NEAR',
      '+',
      ' ',
      ',',
      '{',
      '}',
      'é',
    ];
    let seed = 7;
    for (let i = 0; i < 500; i++) {
      let query = '';
      for (let n = 1 + (i % 9); n > 0; n--)
        query += alphabet[(seed = (seed * 1103515245 + 12345) % 2147483648) % alphabet.length];
      expect(() => searchKnowledge(g.db, { query, limit: 3 }), JSON.stringify(query)).not.toThrow();
    }
  });

  it('applies the export rules: superseded candidates, hidden facts, hidden entities and their facts never appear; an unhidden record comes back', () => {
    seedShop(g.db);
    // A weaker candidate for the grinder's price: superseded, so its value is not searchable.
    applyContribution(
      g.db,
      site,
      contribution('page:3', 'https://shop.example/review', {
        entities: [entity(ref('WebPage', 'https://shop.example/review'), 'Review page')],
        facts: [
          fact(grinder, 'price', 199, {
            display: '199.00 EUR',
            provenanceMethod: 'text_extraction',
            subjectName: 'Hand Grinder',
          }),
        ],
      }),
    );
    expect(ids(g.db, '199')).toEqual([]);
    const price = searchKnowledge(g.db, { query: '259', limit: 5 });
    expect(price).toHaveLength(1);
    // A pin makes the other candidate the survivor: the index follows in the same transaction.
    setEditorial(g.db, price[0]!.id, { pinned: true, pinnedItemKey: 'page:3' });
    expect(ids(g.db, '259')).toEqual([]);
    expect(ids(g.db, '199')).toEqual([price[0]!.id]);

    setEditorial(g.db, price[0]!.id, { hidden: true });
    expect(ids(g.db, '199')).toEqual([]);
    setEditorial(g.db, price[0]!.id, { hidden: false });
    expect(ids(g.db, '199')).toEqual([price[0]!.id]);

    const grinderId = ids(g.db, 'hand grinder', 'entity')[0]!;
    setEditorial(g.db, grinderId, { hidden: true });
    expect(ids(g.db, 'hand grinder', 'entity')).toEqual([]);
    expect(ids(g.db, 'walnut')).toEqual([]); // a fact of a hidden entity is withheld too
    expect(ids(g.db, 'hand grinder', 'fact')).toHaveLength(1); // the kettle's fact stays
    expect(ids(g.db, 'burr')).toHaveLength(1); // chunks are exported whatever their mentions
  });

  it('follows re-ingestion and removal of an item in the same transaction', () => {
    seedShop(g.db);
    applyContribution(
      g.db,
      site,
      contribution('product:2', 'https://shop.example/kettle', {
        primaryEntity: kettle,
        entities: [entity(kettle, 'Copper Kettle')],
        chunks: [
          { position: 0, language: 'en', text: 'Copper heats evenly.', headingPath: ['Care', 'Heat'], mentions: [] },
        ],
      }),
    );
    expect(ids(g.db, 'steel')).toEqual([]);
    expect(ids(g.db, 'copper')).toHaveLength(2);
    expect(ids(g.db, 'pairs')).toEqual([]);
    expect(searchKnowledge(g.db, { query: 'heat', limit: 5 }).map((h) => h.snippet)).toEqual([
      'Care / <mark>Heat</mark>',
    ]);
    removeItem(g.db, site, 'product:2');
    expect(ids(g.db, 'copper')).toEqual([]);
    expect(
      readIndexedDocuments(g.db)
        .map((d) => d.recordId)
        .sort(),
    ).toEqual(
      g.db
        .prepare(
          `SELECT id FROM entities UNION ALL SELECT DISTINCT fact_id FROM fact_candidates UNION ALL SELECT id FROM chunks ORDER BY 1`,
        )
        .pluck()
        .all(),
    );
    expect(g.db.prepare(`INSERT INTO search_fts (search_fts, rank) VALUES ('integrity-check', 0)`).run()).toBeDefined();
  });

  it('filters by kind and pages through a ranked list without repeats or gaps', () => {
    for (let i = 0; i < 30; i++) {
      const r = ref('Product', `https://shop.example/p/${i}`);
      applyContribution(
        g.db,
        site,
        contribution(`product:${i}`, `https://shop.example/p/${i}`, {
          primaryEntity: r,
          entities: [entity(r, `Kettle ${i}`)],
          facts: [fact(r, 'color', i % 2 === 0 ? 'kettle black' : 'red', { subjectName: `Kettle ${i}` })],
          chunks: [
            {
              position: 0,
              language: 'en',
              text: `Kettle number ${i} ${'kettle '.repeat(i % 4)}`,
              headingPath: [],
              mentions: [],
            },
          ],
        }),
      );
    }
    const all = searchKnowledge(g.db, { query: 'kettle', limit: 1000 });
    expect(all).toHaveLength(90);
    const paged: string[] = [];
    let after;
    for (;;) {
      const page = searchKnowledge(g.db, { query: 'kettle', limit: 7, ...(after ? { after } : {}) });
      paged.push(...page.map((h) => h.id));
      if (page.length < 7) break;
      after = page[page.length - 1]!.position;
    }
    expect(paged).toEqual(all.map((h) => h.id));
    expect(new Set(ids(g.db, 'kettle', 'fact').map((id) => id.slice(0, 5)))).toEqual(new Set(['fact_']));
    expect(ids(g.db, 'kettle', 'chunk')).toHaveLength(30);
  });
});

describe('common words (in more documents than commonDocuments): bounded work whatever the website size', () => {
  /** Twelve kettles (entity, a colour fact, a chunk each), then a zinc kettle and a kettlebell. */
  function seedKettles(db: Db): void {
    for (let i = 0; i < 12; i++) {
      const r = ref('Product', `https://shop.example/k/${i}`);
      applyContribution(
        db,
        site,
        contribution(`product:${i}`, `https://shop.example/k/${i}`, {
          primaryEntity: r,
          entities: [entity(r, `Kettle ${i}`)],
          facts: [fact(r, 'color', i % 2 === 0 ? 'kettle black' : 'red', { subjectName: `Kettle ${i}` })],
          chunks: [
            {
              position: 0,
              language: 'en',
              text: `Kettle number ${i} ${'kettle '.repeat(i % 4)}`,
              headingPath: [],
              mentions: [],
            },
          ],
        }),
      );
    }
    const zinc = ref('Product', 'https://shop.example/zinc');
    applyContribution(
      db,
      site,
      contribution('product:zinc', 'https://shop.example/zinc', {
        primaryEntity: zinc,
        entities: [entity(zinc, 'Zinc Kettle')],
        chunks: [
          {
            position: 0,
            language: 'en',
            text: 'A kettle of zinc, and the zinc lid of that kettle',
            headingPath: [],
            mentions: [],
          },
        ],
      }),
    );
    const bell = ref('Product', 'https://shop.example/bell');
    applyContribution(
      db,
      site,
      contribution('product:bell', 'https://shop.example/bell', {
        primaryEntity: bell,
        entities: [entity(bell, 'Kettlebell')],
      }),
    );
  }
  const COMMON = 5;

  it('every word common: hits come unranked (score 0), entities, then facts, then chunks, each newest first, and page without repeats or gaps', () => {
    seedKettles(g.db);
    const all = searchKnowledge(g.db, { query: 'kettle ', limit: 100, commonDocuments: COMMON });
    expect(all.every((h) => h.score === 0)).toBe(true);
    const kinds = all.map((h) => h.kind);
    expect(kinds).toEqual(
      [...kinds].sort((a, b) => ['entity', 'fact', 'chunk'].indexOf(a) - ['entity', 'fact', 'chunk'].indexOf(b)),
    );
    expect(all.filter((h) => h.kind === 'entity').map((h) => h.title)).toEqual([
      'Zinc Kettle',
      ...Array.from({ length: 12 }, (_, i) => `Kettle ${11 - i}`),
    ]);
    // The same documents as the ranked search finds, in another order.
    const ranked = searchKnowledge(g.db, { query: 'kettle ', limit: 100 });
    expect(ranked.every((h) => h.score > 0)).toBe(true);
    expect(new Set(all.map((h) => h.id))).toEqual(new Set(ranked.map((h) => h.id)));
    expect(all.find((h) => h.title === 'Kettle 4')!.snippet).toBe('<mark>Kettle</mark> 4');
    const paged: string[] = [];
    let after;
    for (;;) {
      const page = searchKnowledge(g.db, {
        query: 'kettle ',
        limit: 7,
        commonDocuments: COMMON,
        ...(after ? { after } : {}),
      });
      paged.push(...page.map((h) => h.id));
      if (page.length < 7) break;
      after = page[page.length - 1]!.position;
    }
    expect(paged).toEqual(all.map((h) => h.id));
    expect(
      searchKnowledge(g.db, { query: 'kettle ', limit: 100, commonDocuments: COMMON, kind: 'chunk' }).map((h) => h.id),
    ).toEqual(all.filter((h) => h.kind === 'chunk').map((h) => h.id));
    // Export rules hold unranked too.
    const hidden = all.find((h) => h.kind === 'fact')!;
    setEditorial(g.db, hidden.id, { hidden: true });
    expect(searchKnowledge(g.db, { query: 'kettle ', limit: 100, commonDocuments: COMMON }).map((h) => h.id)).toEqual(
      all.filter((h) => h !== hidden).map((h) => h.id),
    );
  });

  it("a common word filters and the uncommon ones rank: the same hits as ranking both, by the uncommon word's BM25", () => {
    seedKettles(g.db);
    const hits = searchKnowledge(g.db, { query: 'kettle zinc', limit: 10, commonDocuments: COMMON });
    expect(hits.map((h) => h.kind)).toEqual(['entity', 'chunk']);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
    expect(hits[1]!.snippet).toBe(
      'A <mark>kettle</mark> of <mark>zinc</mark>, and the <mark>zinc</mark> lid of that <mark>kettle</mark>',
    );
    expect(new Set(hits.map((h) => h.id))).toEqual(new Set(ids(g.db, 'kettle zinc')));
  });

  it('a typed last word that is common as a whole word matches whole; a last word under 3 characters always does', () => {
    seedKettles(g.db);
    expect(ids(g.db, 'kettle')).toContain(ids(g.db, 'kettlebell')[0]);
    const whole = searchKnowledge(g.db, { query: 'kettle', limit: 100, commonDocuments: COMMON }).map((h) => h.id);
    expect(whole).not.toContain(ids(g.db, 'kettlebell')[0]);
    expect(whole).toEqual(
      searchKnowledge(g.db, { query: 'kettle ', limit: 100, commonDocuments: COMMON }).map((h) => h.id),
    );
    // An uncommon typed prefix still matches longer words.
    expect(ids(g.db, 'kettleb')).toEqual(ids(g.db, 'kettlebell'));
    expect(ids(g.db, 'zi')).toEqual([]);
    expect(ids(g.db, 'zin')).toHaveLength(2);
  });
});

describe('graph migration 0003', () => {
  it('indexes what a graph made before it holds (test/data/graph-v2.sqlite)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'nodectl-knowledge-'));
    try {
      const file = join(dir, 'graph.sqlite');
      copyFileSync(join(PROJECT_ROOT, 'test', 'data', 'graph-v2.sqlite'), file);
      const db = openDatabase(file, GRAPH_DB_OPTIONS);
      try {
        expect(searchKnowledge(db, { query: 'example ltd', limit: 5, kind: 'entity' }).map((h) => h.title)).toEqual([
          'Example Ltd',
        ]);
        expect(searchKnowledge(db, { query: 'founded 2009', limit: 5 }).map((h) => h.title)).toEqual([
          'Example Ltd: founded',
        ]);
        expect(searchKnowledge(db, { query: 'bicycles utrecht', limit: 5 })).toMatchObject([
          { kind: 'chunk', snippet: expect.stringContaining('<mark>bicycles</mark> in <mark>Utrecht</mark>') },
        ]);
      } finally {
        db.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('graph migrations 0004 and 0009', () => {
  it('index a version 3 graph again with the kind rowid ranges and the prefix list of 3 characters; a typed 4-letter prefix still matches (test/data/graph-v3.sqlite)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'nodectl-knowledge-'));
    try {
      const file = join(dir, 'graph.sqlite');
      copyFileSync(join(PROJECT_ROOT, 'test', 'data', 'graph-v3.sqlite'), file);
      const db = openDatabase(file, GRAPH_DB_OPTIONS);
      try {
        expect(db.prepare(`SELECT sql FROM sqlite_master WHERE name = 'search_fts'`).pluck().get()).toMatch(
          /prefix = '3', content = '', contentless_delete = 1/,
        );
        expect(searchKnowledge(db, { query: 'founded 2009', limit: 5 }).map((h) => h.title)).toEqual([
          'Example Ltd: founded',
        ]);
        expect(searchKnowledge(db, { query: 'bicy', limit: 5, kind: 'chunk' })).toMatchObject([
          { kind: 'chunk', snippet: expect.stringContaining('<mark>bicycles</mark>') },
        ]);
        const docs = readIndexedDocuments(db);
        expect(docs.map((d) => d.kind).sort()).toEqual(['chunk', 'entity', 'fact']);
        for (const d of docs) expect(d.rowid, d.kind!).toBeGreaterThanOrEqual(ROWID_RANGE[d.kind as SearchKind].first);
      } finally {
        db.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
