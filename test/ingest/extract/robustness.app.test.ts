import { describe, expect, it } from 'vitest';
import type { IngestItem } from '../../../src/platform/contract/ingest-item.js';
import type { ItemContribution } from '../../../src/ingest/extract/contribution.js';
import { extractItem } from '../../../src/ingest/extract/index.js';
import { MAX_WARNINGS } from '../../../src/ingest/extract/contribution-builder.js';
import { CHECKSUM, RECEIVED, factOf, site } from './helpers.js';
import { CLEAN, problemsOf, runPipeline } from './pipeline.js';

const DEPTH = 10_000;

function extract(
  parts: Partial<IngestItem>,
  mappings: Parameters<typeof extractItem>[2]['mappings'] = [],
): ItemContribution {
  return extractItem(
    { type: 'page', id: 'p', url: 'https://shop.example/p', checksum: CHECKSUM, ...parts } as IngestItem,
    site,
    { receivedAt: RECEIVED, mappings },
  );
}

const nest = (open: string, close: string, inner: string, depth = DEPTH): string =>
  open.repeat(depth) + inner + close.repeat(depth);
const predicates = (c: ItemContribution): string[] => c.facts.map((f) => f.predicate);

describe('deep nesting never exhausts the stack (HTML 4,000+ levels deep failed with "Maximum call stack size exceeded")', () => {
  const PARAGRAPH = 'A paragraph deep inside the page, long enough to be read as text.';

  it.each([
    ['div', nest('<div>', '</div>', `<p>${PARAGRAPH}</p>`)],
    ['unclosed div', nest('<div>', '', `<p>${PARAGRAPH}</p>`)],
    ['span inside a paragraph', `<p>${nest('<span>', '</span>', PARAGRAPH)}</p>`],
    ['section inside an article', `<article>${nest('<section>', '</section>', `<p>${PARAGRAPH}</p>`)}</article>`],
  ])('HTML: %s nested 10,000 deep is read', (_name, body) => {
    const c = extract({ html: `<html><body>${body}</body></html>` });
    expect(c.chunks.map((ch) => ch.text).join(' ')).toContain(PARAGRAPH);
  });

  it('HTML: microdata, a byline, a definition list and a details element nested 10,000 deep are read', () => {
    const html = `<html><body>
      <div itemscope itemtype="https://schema.org/Product">${nest('<div>', '</div>', '<span itemprop="sku">SKU-1</span>')}</div>
      <div class="byline">${nest('<span>', '</span>', 'By Jane Doe')}</div>
      <dl>${nest('<div>', '</div>', '<dt>Material</dt><dd>Oak</dd>')}</dl>
      <details><summary>Is it oak?</summary>${nest('<div>', '</div>', 'Yes, solid oak.')}</details>
    </body></html>`;
    const c = extract({ html });
    expect(factOf(c, 'sku', 'schema_org')?.value).toBe('SKU-1');
    expect(factOf(c, 'author', 'text_extraction')?.value).toBe('Jane Doe');
    expect(factOf(c, 'material', 'text_extraction')?.value).toBe('Oak');
    expect(c.qa.map((q) => q.answer)).toContain('Yes, solid oak.');
  });

  it('JSON-LD: values nested 10,000 deep are skipped, their siblings read', () => {
    const deepName = nest('[', ']', '"Deep"');
    const deepUrl = nest('{"url":', '}', '"https://shop.example/img.png"');
    const ld = `{"@type":"Product","name":${deepName},"sku":"SKU-2","image":${deepUrl},"brand":${nest('[', ']', '"Acme"')},"offers":${nest('[', ']', '{"price":"3"}')}}`;
    const c = extract({
      type: 'product',
      html: `<html><head><script type="application/ld+json">${ld}</script></head><body></body></html>`,
    });
    expect(factOf(c, 'sku', 'schema_org')?.value).toBe('SKU-2');
    expect(predicates(c)).not.toContain('image');
  });

  it("an item's json nested 10,000 deep extracts (the graph's other fields still read)", () => {
    const deepArray = JSON.parse(nest('[', ']', '"x"'));
    let deepObject: Record<string, unknown> = { name: 'bottom' };
    for (let i = 0; i < DEPTH; i += 1) deepObject = { child: deepObject, list: [deepObject] };
    const json = {
      description: deepArray,
      profile_type: deepArray,
      images: [{ url: deepArray }],
      author: deepArray,
      tags: deepArray,
      seo: { title: deepArray, keywords: deepArray },
      price: { amount: deepArray, currency: deepArray },
      deep: deepObject,
      sku: 'SKU-3',
      fields: { a: deepArray },
    };
    const c = extract({ type: 'profile', json, attributes: { deep: deepObject, color: deepArray } }, [
      { source_path: 'json.fields.a', target: 'attribute', attribute_name: 'A', provenance_method: 'cms_field' },
    ]);
    expect(c.primaryEntity.type).toBe('Person');
    expect(factOf(c, 'sku', 'cms_field')?.value).toBe('SKU-3');
  });
});

describe('every predicate is snake_case, or the candidate is dropped with a warning', () => {
  const table = (rows: Array<[string, string]>) =>
    `<table>${rows.map(([k, v]) => `<tr><td>${k}</td><td>${v}</td></tr>`).join('')}</table>`;

  it('a table whose first column holds section numbers no longer fails the website compile (predicate 4_1_6 must be snake_case): the rows are dropped, the graph keeps the warning', async () => {
    const sections = `<html><body><h1>Building code</h1>${table([
      ['4.1.6', 'Lighting of stairs'],
      ['4.1.7', 'Handrails'],
      ['§ 12', 'Fire exits'],
      ['Scope', 'Public buildings'],
    ])}</body></html>`;
    const other = '<html><body><p>Another page of the same website, with enough text to count.</p></body></html>';
    const items: IngestItem[] = [
      { type: 'doc', id: 'code', url: 'https://shop.example/code', html: sections, checksum: CHECKSUM },
      { type: 'page', id: 'other', url: 'https://shop.example/other', html: other, checksum: CHECKSUM },
    ];
    const c = extractItem(items[0]!, site, { receivedAt: RECEIVED });
    expect(predicates(c).filter((p) => !/^[a-z][a-z0-9_]*$/.test(p))).toEqual([]);
    expect(factOf(c, 'scope', 'text_extraction')?.value).toBe('Public buildings');
    expect(c.warnings).toEqual([
      'predicate.dropped: 3 key/value row(s) skipped, their label has no snake_case predicate form ("4.1.6", "4.1.7", "§ 12")',
    ]);

    const outcome = await runPipeline(items);
    expect(problemsOf(outcome)).toEqual(CLEAN);
    expect(outcome.ingest.processed).toBe(2);
    expect(outcome.ingest.warned).toBe(1);
    expect(outcome.warnings.get('doc:code')).toEqual(c.warnings);
    expect(outcome.warnings.get('page:other')).toEqual([]);
  });

  it('labels with no ASCII form ("価格", "Цена (USD)") are dropped with a warning; "Größe" and "3D print" keep a predicate', () => {
    const c = extract({
      html: `<html><body>${table([
        ['価格', '100 円'],
        ['Цена (USD)', '5'],
        ['Größe', 'XL'],
        ['3D print', 'yes'],
      ])}</body></html>`,
    });
    expect(predicates(c)).toEqual(expect.arrayContaining(['grosse', 'field_3d_print']));
    expect(predicates(c)).not.toContain('usd');
    expect(c.warnings).toEqual([
      'predicate.dropped: 2 key/value row(s) skipped, their label has no snake_case predicate form ("価格", "Цена (USD)")',
    ]);
  });

  it('a mapping whose attribute_name has no predicate form is skipped with a warning', () => {
    const c = extract({ json: { fields: { a: 'x', b: 'y' } } }, [
      { source_path: 'json.fields.a', target: 'attribute', attribute_name: '4.1.6', provenance_method: 'cms_field' },
      {
        source_path: 'json.fields.b',
        target: 'attribute',
        attribute_name: 'Colour name',
        provenance_method: 'cms_field',
      },
    ]);
    expect(factOf(c, 'colour_name', 'cms_field')?.value).toBe('y');
    expect(c.warnings).toEqual([
      'predicate.dropped: mapping "json.fields.a" skipped, attribute_name "4.1.6" has no snake_case predicate form',
    ]);
  });

  it('a JSON-LD key "constructor" or "toString" is no property (Object\'s own function was emitted as the predicate)', () => {
    const ld =
      '{"@type":"Product","name":"Lamp","constructor":"x","toString":"y","hasOwnProperty":"z","__proto__":{"sku":"inherited"}}';
    const c = extract({
      html: `<html><head><script type="application/ld+json">${ld}</script></head><body></body></html>`,
    });
    expect(c.facts.every((f) => typeof f.predicate === 'string' && /^[a-z][a-z0-9_]*$/.test(f.predicate))).toBe(true);
    expect(predicates(c)).not.toContain('sku');
  });

  it('a label "constructor" is an ordinary predicate with the default importance (it had none)', () => {
    const c = extract({
      html: `<html><body>${table([['constructor', 'Acme Works']])}</body></html>`,
      json: { constructor: 'x' },
    });
    expect(factOf(c, 'constructor', 'text_extraction')).toMatchObject({
      value: 'Acme Works',
      importance: 2,
      freshness: 'stable',
    });
  });

  it('an item keeps at most MAX_WARNINGS warnings and counts the rest', () => {
    const blocks = Array.from(
      { length: MAX_WARNINGS + 10 },
      (_, i) => `<script type="application/ld+json">{broken ${i}</script>`,
    ).join('');
    const c = extract({ html: `<html><head>${blocks}</head><body></body></html>` });
    expect(c.warnings).toHaveLength(MAX_WARNINGS + 1);
    expect(c.warnings.at(-1)).toBe('warnings.truncated: 10 more');
  });
});

describe('entity types, urls and dates take the form node records accept', () => {
  it('an empty or unnamed @type falls back to the item type (an empty entity type failed the compile)', () => {
    for (const type of ['', 'https://schema.org/', '価格', 'Product?x']) {
      const c = extract({
        type: 'product',
        html: `<html><head><script type="application/ld+json">{"@type":${JSON.stringify(type)},"name":"Lamp"}</script></head><body></body></html>`,
      });
      expect(c.primaryEntity.type, type).toBe('Product');
    }
    const c = extract({
      html: '<html><head><script type="application/ld+json">{"@type":"schema:event","name":"Fair"}</script></head><body></body></html>',
    });
    expect(c.primaryEntity.type).toBe('Event');
  });

  it('the source url is written as the node accepts it; a canonical_url off the website is no fact', () => {
    const c = extract({
      url: 'HTTPS://SHOP.EXAMPLE/a b',
      canonical_url: 'https://other.example/a',
      html: '<html><head><link rel="canonical" href="https://shop.example/a"></head><body></body></html>',
    });
    expect(c.source.url).toBe('https://shop.example/a%20b');
    expect(c.source.canonicalUrl).toBe('https://other.example/a');
    expect(c.facts.filter((f) => f.predicate === 'canonical_url').map((f) => f.value)).toEqual([
      'https://shop.example/a',
    ]);
    expect(c.warnings).toEqual([
      'fact.dropped: canonical_url "https://other.example/a" is not an absolute http(s) url on the website\'s hosts',
    ]);
  });

  it('out-of-range dates are dropped: no valid_until of "2024-02-30", no date_published of year 10000', () => {
    const ld =
      '{"@type":"Product","name":"Lamp","datePublished":"9999-12-31T23:59:59-05:00","offers":{"price":"3","priceValidUntil":"2024-02-30"}}';
    const c = extract({
      type: 'product',
      html: `<html><head><script type="application/ld+json">${ld}</script></head><body></body></html>`,
    });
    expect(predicates(c)).not.toContain('date_published');
    expect(predicates(c)).not.toContain('price_valid_until');
    expect(factOf(c, 'price', 'schema_org')).not.toHaveProperty('validUntil');
  });
});

describe('long lines in the places the site-name and byline rules read', () => {
  it('a footer whose copyright line runs 100,000 characters and a byline of 20,000 addresses extract (no backtracking blow-up; bench/extract-hostile.mjs times them)', () => {
    const footer = `<footer><p>© 2024 ${'-,'.repeat(50_000)}x</p></footer>`;
    const byline = `<p class="byline">By Jane Roe ${'a@b '.repeat(20_000)}</p>`;
    const c = extract({
      html: `<html><head><title>Owls</title></head><body><article><h1>Owls</h1>${byline}<p>Owls hunt mostly at night.</p></article>${footer}</body></html>`,
    });
    expect(c.entities[0]!.name).toBe('Owls');
    expect(factOf(c, 'author', 'text_extraction')).toBeUndefined();
    expect(c.facts.filter((f) => f.predicate === 'site_name')).toEqual([]);
  });
});
