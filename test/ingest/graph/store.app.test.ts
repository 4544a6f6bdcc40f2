import { afterEach, describe, expect, it } from 'vitest';
import { applyContribution, refreshSourceTrust } from '../../../src/ingest/graph/apply-contribution.js';
import { entityIdOf, factIdOf, sourceIdOf } from '../../../src/ingest/graph/apply-contribution.js';
import { removeItem } from '../../../src/ingest/graph/remove-item.js';
import { setEditorial } from '../../../src/ingest/graph/editorial.js';
import { SqliteGraphReader } from '../../../src/ingest/graph/reader.js';
import { contribution, count, entity, fact, ref, site, tempGraph, type TempGraph } from './helpers.js';

let g: TempGraph;
afterEach(() => g?.cleanup());

const ws = site.websiteId;
const pageA = 'https://shop.example/a';
const pageB = 'https://shop.example/b';
const acme = ref('Organization', 'shop.example');

describe('entities', () => {
  it('dedupes an entity across items, chooses its name by provenance then confidence, keeps the max importance, and lives while one item contributes it', () => {
    g = tempGraph();
    applyContribution(
      g.db,
      site,
      contribution('post:1', pageA, {
        entities: [
          entity(ref('WebPage', pageA), 'A'),
          entity(acme, 'acme from text', { provenanceMethod: 'text_extraction', confidence: 0.99, importance: 5 }),
        ],
      }),
    );
    applyContribution(
      g.db,
      site,
      contribution('post:2', pageB, {
        entities: [
          entity(ref('WebPage', pageB), 'B'),
          entity(acme, 'Acme Inc', { provenanceMethod: 'schema_org', confidence: 0.5, importance: 2 }),
        ],
      }),
    );
    const reader = new SqliteGraphReader(g.db);
    const id = entityIdOf(ws, acme);
    expect(count(g.db, 'entities', 'id = ?', id)).toBe(1);
    expect(reader.entityById(id)).toMatchObject({
      name: 'Acme Inc',
      provenanceMethod: 'schema_org',
      importance: 5,
      type: 'Organization',
      canonicalKey: 'shop.example',
    });

    removeItem(g.db, site, 'post:2');
    expect(reader.entityById(id)).toMatchObject({ name: 'acme from text', importance: 5 });
    removeItem(g.db, site, 'post:1');
    expect(reader.entityById(id)).toBeUndefined();
    expect(count(g.db, 'entities')).toBe(0);
  });
});

describe('fact survivors', () => {
  const subject = ref('WebPage', pageA);
  const factId = () => factIdOf(ws, entityIdOf(ws, subject), 'price', 'en');
  const survivorValue = (g: TempGraph) => {
    const rows = [...new SqliteGraphReader(g.db).facts('en')].filter((f) => f.id === factId());
    return {
      active: rows.filter((f) => f.status === 'active').map((f) => f.value),
      all: rows.map((f) => [f.value, f.status]),
    };
  };

  it('orders pinned > provenance > confidence > newest source, and keeps the losers as superseded', () => {
    g = tempGraph();
    const item = (key: string, value: number, extra: Parameters<typeof fact>[3], lastSeen: string) =>
      contribution(
        key,
        pageA,
        { entities: [entity(subject, 'A')], facts: [fact(subject, 'price', value, extra)] },
        lastSeen,
      );
    applyContribution(
      g.db,
      site,
      item('post:old', 1, { provenanceMethod: 'seo_meta', confidence: 0.8 }, '2026-01-01T00:00:00Z'),
    );
    applyContribution(
      g.db,
      site,
      item('post:new', 2, { provenanceMethod: 'seo_meta', confidence: 0.8 }, '2026-02-01T00:00:00Z'),
    );
    expect(survivorValue(g).active).toEqual([2]); // same provenance and confidence: newest wins
    applyContribution(
      g.db,
      site,
      item('post:sure', 3, { provenanceMethod: 'seo_meta', confidence: 0.95 }, '2025-01-01T00:00:00Z'),
    );
    expect(survivorValue(g).active).toEqual([3]); // confidence beats recency
    applyContribution(
      g.db,
      site,
      item('post:cms', 4, { provenanceMethod: 'cms_field', confidence: 0.5 }, '2024-01-01T00:00:00Z'),
    );
    expect(survivorValue(g).active).toEqual([4]); // provenance beats confidence
    setEditorial(g.db, factId(), { pinned: true, pinnedItemKey: 'post:old' });
    const after = survivorValue(g);
    expect(after.active).toEqual([1]); // a pin beats everything
    expect(after.all).toEqual([
      [1, 'active'],
      [4, 'superseded'],
      [3, 'superseded'],
      [2, 'superseded'],
    ]);
    expect(count(g.db, 'fact_candidates', 'fact_id = ?', factId())).toBe(4);
  });

  it('re-chooses the survivor when the winning item is removed', () => {
    g = tempGraph();
    applyContribution(
      g.db,
      site,
      contribution('post:1', pageA, { facts: [fact(subject, 'price', 10, { provenanceMethod: 'text_extraction' })] }),
    );
    applyContribution(
      g.db,
      site,
      contribution('post:2', pageA, { facts: [fact(subject, 'price', 20, { provenanceMethod: 'schema_org' })] }),
    );
    expect(survivorValue(g).active).toEqual([20]);
    removeItem(g.db, site, 'post:2');
    expect(survivorValue(g).all).toEqual([[10, 'active']]);
  });
});

describe('replacing an item', () => {
  it('replaces only what that item contributed', () => {
    g = tempGraph();
    const a = ref('WebPage', pageA);
    const b = ref('WebPage', pageB);
    applyContribution(
      g.db,
      site,
      contribution('post:1', pageA, {
        facts: [fact(a, 'description', 'first A'), fact(acme, 'slogan', 'from A')],
        chunks: [{ text: 'chunk of A', headingPath: ['A'], position: 0, language: 'en', mentions: [a] }],
      }),
    );
    applyContribution(
      g.db,
      site,
      contribution('post:2', pageB, {
        facts: [fact(b, 'description', 'B'), fact(acme, 'slogan', 'from B', { confidence: 0.1 })],
        chunks: [{ text: 'chunk of B', headingPath: [], position: 0, language: 'en', mentions: [b] }],
      }),
    );
    const snapshot = (item: string) => ({
      facts: g.db
        .prepare('SELECT fact_id, value, status FROM fact_candidates WHERE item_key = ? ORDER BY fact_id, ordinal')
        .all(item),
      chunks: g.db.prepare('SELECT id, text FROM chunks WHERE item_key = ? ORDER BY id').all(item),
    });
    const before = snapshot('post:2');
    applyContribution(
      g.db,
      site,
      contribution('post:1', pageA, {
        facts: [fact(a, 'description', 'second A')],
        chunks: [{ text: 'new chunk of A', headingPath: [], position: 0, language: 'en', mentions: [] }],
      }),
    );
    const afterB = snapshot('post:2');
    // post:2's slogan lost to post:1 before and survives now; nothing else of post:2 changed.
    expect(afterB.chunks).toEqual(before.chunks);
    expect(afterB.facts).toEqual(
      before.facts.map((f: any) => (f.value === '"from B"' ? { ...f, status: 'active' } : f)),
    );
    expect(g.db.prepare('SELECT value FROM fact_candidates WHERE item_key = ?').pluck().all('post:1')).toEqual([
      '"second A"',
    ]);
    expect(g.db.prepare('SELECT text FROM chunks WHERE item_key = ?').pluck().all('post:1')).toEqual([
      'new chunk of A',
    ]);
  });
});

describe('relationships', () => {
  const author = ref('Person', 'jane doe');
  const withEdge = () =>
    contribution('post:1', pageA, {
      relationships: [
        {
          from: ref('WebPage', pageA),
          type: 'authored_by',
          to: author,
          language: 'en',
          confidence: 0.9,
          provenanceMethod: 'schema_org',
        },
      ],
    });
  const edge = (g: TempGraph) => [...new SqliteGraphReader(g.db).relationships('en')][0]!;

  it('is dangling until a later item brings the target, and dangling again when that item is tombstoned', () => {
    g = tempGraph();
    applyContribution(g.db, site, withEdge());
    expect(edge(g)).toMatchObject({ resolutionStatus: 'dangling', toEntityId: null, toRef: entityIdOf(ws, author) });
    applyContribution(
      g.db,
      site,
      contribution('profile:jane', 'https://shop.example/jane', { entities: [entity(author, 'Jane Doe')] }),
    );
    expect(edge(g)).toMatchObject({ resolutionStatus: 'resolved', toEntityId: entityIdOf(ws, author) });
    removeItem(g.db, site, 'profile:jane');
    expect(edge(g)).toMatchObject({ resolutionStatus: 'dangling', toEntityId: null });
    expect(count(g.db, 'raw_items')).toBe(0); // no raw row was written in this test; removeItem tolerates that
  });

  it('carries the write sequence of the last write of its row: upserted, re-resolved', () => {
    g = tempGraph();
    const graphSeq = () => g.db.prepare('SELECT seq FROM graph_state').pluck().get() as number;
    const edgeSeq = () => g.db.prepare('SELECT seq FROM relationships').pluck().get() as number;
    applyContribution(g.db, site, withEdge());
    const written = graphSeq();
    expect(edgeSeq()).toBe(written);
    // A write that names neither the edge nor its ends leaves it as it was.
    applyContribution(g.db, site, contribution('post:2', pageB, { entities: [entity(acme, 'Acme')] }));
    expect(graphSeq()).toBeGreaterThan(written);
    expect(edgeSeq()).toBe(written);
    // Its target appears: re-resolved. Its item again: upserted.
    applyContribution(
      g.db,
      site,
      contribution('profile:jane', 'https://shop.example/jane', { entities: [entity(author, 'Jane Doe')] }),
    );
    expect(edge(g).resolutionStatus).toBe('resolved');
    expect(edgeSeq()).toBe(graphSeq());
    const resolved = graphSeq();
    applyContribution(g.db, site, withEdge());
    expect(edgeSeq()).toBeGreaterThan(resolved);
    expect(edgeSeq()).toBe(graphSeq());
  });

  it('resolves at once when the target already exists', () => {
    g = tempGraph();
    applyContribution(
      g.db,
      site,
      contribution('profile:jane', 'https://shop.example/jane', { entities: [entity(author, 'Jane Doe')] }),
    );
    applyContribution(g.db, site, withEdge());
    expect(edge(g)).toMatchObject({
      resolutionStatus: 'resolved',
      fromEntityId: entityIdOf(ws, ref('WebPage', pageA)),
    });
  });
});

describe('chunks', () => {
  it('computes tokens_estimate and keeps only mentions of existing entities', () => {
    g = tempGraph();
    const ghost = ref('Person', 'nobody');
    applyContribution(
      g.db,
      site,
      contribution('post:1', pageA, {
        chunks: [
          {
            text: 'x'.repeat(10),
            headingPath: ['H'],
            position: 0,
            language: 'en',
            mentions: [ref('WebPage', pageA), ghost],
          },
        ],
      }),
    );
    const [chunk] = [...new SqliteGraphReader(g.db).chunks('en')];
    expect(chunk).toMatchObject({
      tokensEstimate: 3,
      entityIds: [entityIdOf(ws, ref('WebPage', pageA))],
      sourceId: sourceIdOf(ws, pageA, null),
      headingPath: ['H'],
    });
  });
});

describe('Q&A staleness', () => {
  const product = ref('Product', pageA);
  const item = (key: string, price: number, extra: Parameters<typeof fact>[3] = {}) =>
    contribution(key, pageA, {
      entities: [entity(product, 'Widget')],
      facts: [fact(product, 'price', price, extra)],
      qa: [
        {
          question: 'What does Widget cost?',
          answer: `Widget costs ${price}.`,
          language: 'en',
          facts: [{ subject: product, predicate: 'price' }],
          entities: [product],
          confidence: 0.8,
          provenanceMethod: 'cms_field',
        },
      ],
    });
  const qa = (g: TempGraph) => [...new SqliteGraphReader(g.db).qa('en')];

  it('goes stale when the surviving value of its fact changes or disappears, and is fresh again when regenerated', () => {
    g = tempGraph();
    applyContribution(g.db, site, item('product:1', 10, { provenanceMethod: 'schema_org' }));
    expect(qa(g)).toMatchObject([{ stale: false, factIds: [factIdOf(ws, entityIdOf(ws, product), 'price', 'en')] }]);
    // Another item wins the price with a stronger provenance: the answer no longer matches.
    applyContribution(
      g.db,
      site,
      contribution('product:2', pageB, { facts: [fact(product, 'price', 12, { provenanceMethod: 'cms_field' })] }),
    );
    expect(qa(g)[0]!.stale).toBe(true);
    removeItem(g.db, site, 'product:2');
    expect(qa(g)[0]!.stale).toBe(false);
    // Hiding the fact makes the answer stale too (it would leak the hidden value).
    setEditorial(g.db, factIdOf(ws, entityIdOf(ws, product), 'price', 'en'), { hidden: true });
    expect(qa(g)[0]!.stale).toBe(true);
  });

  it('carries the write sequence of the last write of any row of its id: inserted, gone stale, a sibling deleted', () => {
    g = tempGraph();
    const graphSeq = () => g.db.prepare('SELECT seq FROM graph_state').pluck().get() as number;
    const seqOf = (itemKey: string) =>
      g.db.prepare('SELECT seq FROM qa WHERE item_key = ?').pluck().get(itemKey) as number;
    applyContribution(g.db, site, item('product:1', 10, { provenanceMethod: 'schema_org' }));
    const inserted = graphSeq();
    expect(seqOf('product:1')).toBe(inserted);
    // Another item wins the price: the answer goes stale.
    applyContribution(
      g.db,
      site,
      contribution('product:2', pageB, { facts: [fact(product, 'price', 12, { provenanceMethod: 'cms_field' })] }),
    );
    expect(qa(g)[0]!.stale).toBe(true);
    expect(seqOf('product:1')).toBe(graphSeq());
    // A second item asks the same question; the first one's row is read, and once it is gone, the second one's.
    removeItem(g.db, site, 'product:2');
    applyContribution(g.db, site, item('product:3', 10));
    const asked = graphSeq();
    expect(seqOf('product:3')).toBe(asked);
    expect(seqOf('product:1')).toBeLessThan(asked);
    removeItem(g.db, site, 'product:1');
    expect(seqOf('product:3')).toBe(graphSeq());
    expect(seqOf('product:3')).toBeGreaterThan(asked);
  });

  it('is regenerated fresh by a re-extraction of its item', () => {
    g = tempGraph();
    applyContribution(g.db, site, item('product:1', 10));
    applyContribution(g.db, site, contribution('product:2', pageB, { facts: [fact(product, 'price', 12)] }));
    setEditorial(g.db, factIdOf(ws, entityIdOf(ws, product), 'price', 'en'), {
      pinned: true,
      pinnedItemKey: 'product:2',
    });
    expect(qa(g)[0]!.stale).toBe(true);
    applyContribution(g.db, site, item('product:1', 12));
    expect(qa(g)).toMatchObject([{ stale: false, answer: 'Widget costs 12.' }]);
  });
});

describe('sources', () => {
  it('dedupes by canonical_url, keeps the newest contributor and carries the verification trust', () => {
    g = tempGraph();
    const canonical = 'https://shop.example/product';
    const withCanonical = (key: string, url: string, lastSeen: string) => {
      const c = contribution(key, url, {}, lastSeen);
      c.source.canonicalUrl = canonical;
      c.source.checksum = 'sha256:' + key.slice(-1).repeat(64);
      return c;
    };
    applyContribution(
      g.db,
      site,
      withCanonical('product:1', 'https://shop.example/product?color=red', '2026-01-01T00:00:00Z'),
    );
    applyContribution(
      g.db,
      site,
      withCanonical('product:2', 'https://shop.example/product?color=blue', '2026-03-01T00:00:00Z'),
    );
    const sources = [...new SqliteGraphReader(g.db).sources()];
    expect(sources).toHaveLength(1);
    expect(sources[0]).toMatchObject({
      id: sourceIdOf(ws, 'anything', canonical),
      canonicalUrl: canonical,
      url: 'https://shop.example/product?color=blue',
      lastSeenAt: '2026-03-01T00:00:00Z',
      trust: 1,
      contentType: 'text/html',
      language: 'en',
    });
    removeItem(g.db, site, 'product:2');
    expect([...new SqliteGraphReader(g.db).sources()][0]).toMatchObject({
      url: 'https://shop.example/product?color=red',
    });
    removeItem(g.db, site, 'product:1');
    expect(count(g.db, 'sources')).toBe(0);
  });

  it('takes the verification trust on refresh, lower or higher, through the trust index rather than a scan', () => {
    g = tempGraph();
    for (const key of ['post:1', 'post:2', 'post:3'])
      applyContribution(g.db, site, contribution(key, `https://shop.example/${key.slice(5)}`, {}));
    const trusts = () => [...new SqliteGraphReader(g.db).sources()].map((x) => x.trust);
    g.db.prepare(`UPDATE sources SET trust = 0.2 WHERE url LIKE '%/1'`).run();
    g.db.prepare(`UPDATE sources SET trust = 1.5 WHERE url LIKE '%/2'`).run();
    const graphSeq = () => g.db.prepare('SELECT seq FROM graph_state').pluck().get() as number;
    const seqs = () => g.db.prepare('SELECT seq FROM sources ORDER BY url').pluck().all() as number[];
    const written = seqs();
    expect(written[2]).toBe(graphSeq());
    // dns_txt verified: trust 1; the two changed sources come back to it, the third is left alone.
    // The rows it sets carry a sequence raised for them (a compile copies the older ones).
    expect(refreshSourceTrust(g.db, site)).toBe(2);
    expect(trusts()).toEqual([1, 1, 1]);
    const refreshed = graphSeq();
    expect(refreshed).toBeGreaterThan(written[2]!);
    expect(seqs()).toEqual([refreshed, refreshed, written[2]]);
    const grace = { ...site, verification: { method: 'dns_txt' as const, state: 'grace' as const } };
    expect(refreshSourceTrust(g.db, grace)).toBe(3);
    expect(new Set(trusts()).size).toBe(1);
    expect(trusts()[0]).toBeLessThan(1);
    expect(new Set(seqs())).toEqual(new Set([graphSeq()]));
    const settled = graphSeq();
    expect(refreshSourceTrust(g.db, grace)).toBe(0);
    expect(graphSeq()).toBe(settled);
    // Every content.ingest batch runs it: a full scan of sources would grow with the website.
    for (const sql of [
      'SELECT EXISTS (SELECT 1 FROM sources WHERE trust < ? OR trust > ?)',
      'UPDATE sources SET trust = ?, seq = (SELECT seq FROM graph_state WHERE id = 1) WHERE trust < ? OR trust > ?',
    ]) {
      const params = sql.startsWith('UPDATE') ? [1, 1, 1] : [1, 1];
      const plan = g.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>;
      expect(plan.map((r) => r.detail).join('\n')).toContain('sources_by_trust');
      expect(plan.map((r) => r.detail)).not.toContain('SCAN sources');
    }
  });
});

describe('editorial state', () => {
  it('survives re-ingestion and a tombstone of the same item', () => {
    g = tempGraph();
    const subject = ref('WebPage', pageA);
    const c = () => contribution('post:1', pageA, { facts: [fact(subject, 'description', 'text')] });
    applyContribution(g.db, site, c());
    const id = factIdOf(ws, entityIdOf(ws, subject), 'description', 'en');
    setEditorial(g.db, id, { hidden: true, editorialStatus: 'reviewed', reviewedBy: 'usr_1', originalValue: 'text' });
    setEditorial(g.db, entityIdOf(ws, subject), { hidden: true });
    applyContribution(g.db, site, c());
    removeItem(g.db, site, 'post:1');
    applyContribution(g.db, site, c());
    const reader = new SqliteGraphReader(g.db);
    expect([...reader.facts('en')][0]!.editorial).toEqual({
      hidden: true,
      pinned: false,
      editorialStatus: 'reviewed',
      reviewedBy: 'usr_1',
      originalValue: 'text',
    });
    expect(reader.entityById(entityIdOf(ws, subject))!.hidden).toBe(true);
  });
});

describe('reading facts back', () => {
  it('returns every field as written: doubles to the last digit, nested values, quotes, control characters, emoji, nulls', () => {
    g = tempGraph();
    const subject = ref('WebPage', pageA);
    const value = {
      name: 'Lamp "Nord"\u0001\n',
      sizes: [0.1 + 0.2, 1 / 3, -0, 1e21],
      tags: ['é', '🦉', '\u2028'],
      none: null,
    };
    const written = fact(subject, 'spec', value, {
      confidence: 0.85,
      unit: 'cm',
      currency: null,
      display: 'Lamp\t"Nord"',
      validFrom: '2026-01-01',
      validUntil: null,
      importance: 4,
    });
    applyContribution(g.db, site, contribution('post:1', pageA, { facts: [written] }));
    const id = factIdOf(ws, entityIdOf(ws, subject), 'spec', 'en');
    setEditorial(g.db, id, { reviewedBy: 'usr_1', originalValue: { before: 0.30000000000000004 } });
    const [row] = [...new SqliteGraphReader(g.db).facts('en')];
    expect(row).toMatchObject({
      id,
      subject: subject.canonicalKey,
      predicate: 'spec',
      value: { ...value, sizes: [0.1 + 0.2, 1 / 3, 0, 1e21] },
      confidence: 0.85,
      unit: 'cm',
      currency: null,
      display: 'Lamp\t"Nord"',
      importance: 4,
      validFrom: '2026-01-01',
      validUntil: null,
      status: 'active',
    });
    expect(row!.editorial).toEqual({
      hidden: false,
      pinned: false,
      editorialStatus: null,
      reviewedBy: 'usr_1',
      originalValue: { before: 0.30000000000000004 },
    });
  });
});

describe('languages', () => {
  it('keeps records per language', () => {
    g = tempGraph();
    const a = ref('WebPage', pageA);
    applyContribution(
      g.db,
      site,
      contribution('post:1', pageA, {
        facts: [fact(a, 'description', 'hello'), fact(a, 'description', 'hallo', { language: 'de' })],
      }),
    );
    const reader = new SqliteGraphReader(g.db);
    expect(reader.languages()).toEqual(['de', 'en']);
    expect([...reader.facts('de')].map((f) => [f.value, f.status])).toEqual([['hallo', 'active']]);
    expect([...reader.facts('en')].map((f) => [f.value, f.status])).toEqual([['hello', 'active']]);
  });
});
