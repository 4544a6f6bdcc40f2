import { readFileSync, existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { IngestItem } from '../../../src/platform/contract/ingest-item.js';
import { writeRawItems } from '../../../src/ingest/graph/raw-items.js';
import { processRawItems } from '../../../src/ingest/graph/process-raw-items.js';
import { removeItem } from '../../../src/ingest/graph/remove-item.js';
import { buildGraphFromItems } from '../../../src/ingest/graph/build-from-items.js';
import { parseEditorialJsonl } from '../../../src/ingest/graph/editorial-entries.js';
import { SqliteGraphReader } from '../../../src/ingest/graph/reader.js';
import type { GraphReader } from '../../../src/ingest/graph/types.js';
import type { Db } from '../../../src/platform/storage/sqlite.js';
import { count, site, tempGraph, type TempGraph } from './helpers.js';

let g: TempGraph | undefined;
afterEach(() => {
  g?.cleanup();
  g = undefined;
});

const RECEIVED = '2026-02-01T12:00:00.000Z';
const sum = (n: number) => 'sha256:' + n.toString(16).padStart(64, '0');

function product(id: string, name: string, price: string, extra: Partial<IngestItem> = {}): IngestItem {
  const ld = {
    '@context': 'https://schema.org',
    '@type': 'Product',
    name,
    sku: `SKU-${id}`,
    brand: { '@type': 'Brand', name: 'Acme' },
    offers: { '@type': 'Offer', price, priceCurrency: 'EUR', availability: 'https://schema.org/InStock' },
  };
  return {
    type: 'product',
    id,
    url: `https://shop.example/p/${id}`,
    checksum: sum(Number(price.replace('.', '')) + id.length),
    html: `<html lang="en"><head><title>${name}</title><meta name="description" content="${name} is a fine product."><script type="application/ld+json">${JSON.stringify(ld)}</script></head>
      <body><main><h1>${name}</h1><p>${name} is made of steel and lasts for many years of daily use in the kitchen.</p><p>Written by Jane Doe.</p></main></body></html>`,
    ...extra,
  };
}

function ingest(db: Db, items: IngestItem[]): string[] {
  const outcomes = writeRawItems(db, items, (i) => JSON.stringify(items[i]), {
    connectorId: 'conn_1',
    defaultLanguage: 'en',
    receivedAt: RECEIVED,
  });
  return outcomes.flatMap((o) => (o.status === 'accepted' ? [o.rawContentId] : []));
}

/** Everything a reader yields, for comparing two graphs. */
function dump(reader: GraphReader): unknown {
  const langs = reader.languages();
  return {
    langs,
    perLanguage: langs.map((l) => ({
      entities: [...reader.entities(l)],
      facts: [...reader.facts(l)],
      relationships: [...reader.relationships(l)],
      chunks: [...reader.chunks(l)],
      qa: [...reader.qa(l)],
    })),
    sources: [...reader.sources()],
  };
}

describe('processRawItems', () => {
  it('marks a broken item failed with last_error and processes the others', () => {
    g = tempGraph();
    const ids = ingest(g.db, [product('1', 'Kettle', '19.90'), product('2', 'Pan', '29.90')]);
    g.db
      .prepare(
        `INSERT INTO raw_items (raw_content_id, item_type, item_id, checksum, url, body, state, received_at) VALUES ('raw_BROKEN', 'product', 'bad', ?, 'https://shop.example/bad', '{not json', 'pending', ?)`,
      )
      .run(sum(9), RECEIVED);
    g.db
      .prepare(
        `INSERT INTO raw_items (raw_content_id, item_type, item_id, checksum, url, body, state, received_at) VALUES ('raw_INVALID', 'product', 'invalid', ?, 'https://shop.example/x', '{"type":"product"}', 'pending', ?)`,
      )
      .run(sum(8), RECEIVED);
    const result = processRawItems(g.db, site, [ids[0]!, 'raw_BROKEN', 'raw_INVALID', ids[1]!, 'raw_UNKNOWN'], {
      now: RECEIVED,
      batchSize: 2,
    });
    expect(result).toMatchObject({ processed: 2, failed: 2, skipped: 1 });
    expect(result.failures.map((f) => [f.itemKey, f.code, f.url])).toEqual([
      ['product:bad', 'item.body_invalid', 'https://shop.example/bad'],
      ['product:invalid', 'item.body_invalid', 'https://shop.example/x'],
    ]);
    const states = g.db.prepare('SELECT item_id, state, last_error FROM raw_items ORDER BY item_id').all() as Array<{
      item_id: string;
      state: string;
      last_error: string | null;
    }>;
    expect(states.map((s) => [s.item_id, s.state])).toEqual([
      ['1', 'processed'],
      ['2', 'processed'],
      ['bad', 'failed'],
      ['invalid', 'failed'],
    ]);
    expect(states.find((s) => s.item_id === 'bad')!.last_error).toMatch(/JSON/);
    expect(states.find((s) => s.item_id === 'invalid')!.last_error).toMatch(/not a valid IngestItem/);
    expect(count(g.db, 'item_contributions')).toBe(2);
    // Processing again is a no-op: the rows are no longer pending.
    expect(processRawItems(g.db, site, ids, { now: RECEIVED })).toMatchObject({ processed: 0, skipped: 2 });
  });

  it('an update replaces the item contribution (real extractor)', () => {
    g = tempGraph();
    processRawItems(g.db, site, ingest(g.db, [product('1', 'Kettle', '19.90')]), { now: RECEIVED });
    processRawItems(g.db, site, ingest(g.db, [product('1', 'Kettle', '24.50')]), { now: RECEIVED });
    const prices = [...new SqliteGraphReader(g.db).facts('en')].filter((f) => f.predicate === 'price');
    expect(prices.filter((f) => f.status === 'active').map((f) => f.value)).toEqual([24.5]);
    expect(prices.some((f) => f.value === 19.9)).toBe(false);
  });
});

describe('gdpr erasure', () => {
  it('leaves no trace of the item in any table nor in the database file', () => {
    g = tempGraph();
    const MARKER = 'Zyxqwv';
    const other = product('2', 'Pan', '29.90');
    const secret = product('1', `${MARKER} Kettle`, '19.90', {
      id: `p-${MARKER}`,
      url: `https://shop.example/p/${MARKER.toLowerCase()}`,
      text: `Personal note from ${MARKER} about ${MARKER}.`,
    });
    const ids = ingest(g.db, [secret, other]);
    expect(processRawItems(g.db, site, ids, { now: RECEIVED }).processed).toBe(2);
    // Editorial state on the erased item's records must go too.
    const factId = g.db
      .prepare(`SELECT fact_id FROM fact_candidates WHERE item_key = ? AND predicate = 'name'`)
      .pluck()
      .get(`product:p-${MARKER}`) as string;
    g.db
      .prepare(`INSERT INTO editorial (record_id, hidden, original_value) VALUES (?, 1, ?)`)
      .run(factId, JSON.stringify(`${MARKER} Kettle`));

    const tables = g.db
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
      .pluck()
      .all() as string[];
    const hits = () =>
      tables.filter((t) =>
        (g!.db.prepare(`SELECT * FROM ${t}`).all() as unknown[]).some((row) =>
          JSON.stringify(row).toLowerCase().includes(MARKER.toLowerCase()),
        ),
      );
    expect(hits().length).toBeGreaterThan(5); // the marker is really spread through the graph

    expect(removeItem(g.db, site, `product:p-${MARKER}`, { erase: true })).toBe(true);
    expect(hits()).toEqual([]);
    for (const file of [g.file, g.file + '-wal']) {
      if (existsSync(file))
        expect(readFileSync(file).toString('latin1').toLowerCase().includes(MARKER.toLowerCase())).toBe(false);
    }
    // The other item is untouched.
    expect(count(g.db, 'item_contributions', 'item_key = ?', 'product:2')).toBe(1);
    expect(count(g.db, 'raw_items')).toBe(1);
  });

  it('keepTombstone leaves only a bare (type, id) row so ingestion will not re-create the item', () => {
    g = tempGraph();
    processRawItems(g.db, site, ingest(g.db, [product('1', 'Kettle', '19.90')]), { now: RECEIVED });
    removeItem(g.db, site, 'product:1', { erase: true, keepTombstone: true });
    expect(g.db.prepare('SELECT item_type, item_id, state, body, url, checksum FROM raw_items').all()).toEqual([
      { item_type: 'product', item_id: '1', state: 'tombstoned', body: null, url: '', checksum: '' },
    ]);
    expect(ingest(g.db, [product('1', 'Kettle', '19.90')])).toEqual([]);
    expect(count(g.db, 'entities')).toBe(0);
  });
});

describe('buildGraphFromItems', () => {
  const items = [
    product('1', 'Kettle', '19.90'),
    product('2', 'Pan', '29.90'),
    product('3', 'Wok', '39.90', { language: 'de' }),
  ];

  it('is deterministic, ordered by id and independent of item order', () => {
    const a = buildGraphFromItems(items, site, { receivedAt: RECEIVED });
    const b = buildGraphFromItems([...items].reverse(), site, { receivedAt: RECEIVED });
    try {
      const da = dump(a.reader) as {
        langs: string[];
        perLanguage: Array<Record<string, Array<{ id: string }>>>;
        sources: Array<{ id: string }>;
      };
      expect(da.langs).toEqual(['de', 'en']);
      expect(JSON.stringify(da)).toBe(JSON.stringify(dump(b.reader)));
      for (const lang of da.perLanguage) {
        for (const rows of Object.values(lang)) {
          const ids = rows.map((r) => r.id);
          expect(ids).toEqual([...ids].sort());
          expect(ids.length).toBeGreaterThan(0);
        }
      }
      expect(da.sources.map((s) => s.id)).toEqual(da.sources.map((s) => s.id).sort());
      expect(a.result).toMatchObject({ processed: 3, failed: 0 });
    } finally {
      a.close();
      b.close();
    }
  });

  it('matches a graph built through raw items and processRawItems, and applies fixture editorial lines', () => {
    const editorial = parseEditorialJsonl(
      [
        '{"item":"product:1","predicate":"description","hidden":true}',
        '{"item":"product:2","hidden":true,"editorial_status":"reviewed","reviewed_by":"fixture"}',
        '',
      ].join('\n'),
    );
    const built = buildGraphFromItems(items, site, { receivedAt: RECEIVED, editorial });
    g = tempGraph();
    processRawItems(g.db, site, ingest(g.db, items), { now: RECEIVED });
    try {
      const direct = new SqliteGraphReader(g.db);
      const en = [...built.reader.facts('en')];
      const hidden = en.filter((f) => f.editorial.hidden);
      expect(hidden.length).toBeGreaterThan(0);
      expect(hidden.every((f) => f.predicate === 'description')).toBe(true);
      expect([...built.reader.entities('en')].filter((e) => e.hidden).map((e) => e.canonicalKey)).toEqual([
        'https://shop.example/p/2',
      ]);
      // Without editorial the two paths give the same records.
      const strip = (rows: Array<{ editorial?: unknown; hidden?: unknown }>) =>
        rows.map(({ editorial: _e, hidden: _h, ...rest }) => rest);
      expect(strip([...built.reader.facts('en')])).toEqual(strip([...direct.facts('en')]));
      expect(strip([...built.reader.entities('en')])).toEqual(strip([...direct.entities('en')]));
      expect([...built.reader.sources()]).toEqual([...direct.sources()]);
    } finally {
      built.close();
    }
  });

  it('rejects an editorial line that names nothing, and a malformed one with its line number', () => {
    expect(() => parseEditorialJsonl('{"item":"product:1"}\n{"hidden":true}')).toThrow(/line 2/);
    const entries = parseEditorialJsonl('{"item":"product:404","hidden":true}');
    expect(() => buildGraphFromItems(items, site, { receivedAt: RECEIVED, editorial: entries })).toThrow(
      /names no record/,
    );
  });
});
