import { describe, expect, it } from 'vitest';
import { extractItem, estimateTokens, MAX_CHUNK_TOKENS, PREDICATES } from '../../../src/ingest/extract/index.js';
import {
  cleanText,
  formatMoney,
  normalizeDate,
  normalizeLanguage,
  parseAmount,
  urlKey,
} from '../../../src/ingest/extract/normalize.js';
import { readFileSync } from 'node:fs';
import { CHECKSUM, RECEIVED, factOf, readPage, relsOf, site } from './helpers.js';

describe('determinism', () => {
  it('gives deep-equal output for the same input', () => {
    const item = {
      type: 'product' as const,
      id: 'p1',
      url: 'https://shop.example/p/oak-lamp',
      html: readPage('product.html'),
      checksum: CHECKSUM,
    };
    expect(extractItem(item, site, { receivedAt: RECEIVED })).toEqual(
      extractItem(structuredClone(item), site, { receivedAt: RECEIVED }),
    );
  });
  it('does not depend on JSON key order or attribute order', () => {
    const a =
      '<html lang="en"><head><meta property="og:title" content="T"><script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Lamp","sku":"S1","offers":{"@type":"Offer","price":"3","priceCurrency":"USD"}}</script></head><body><p class="x" id="y">Some body text that is long enough to count.</p></body></html>';
    const b =
      '<html lang="en"><head><meta content="T" property="og:title"><script type="application/ld+json">{"offers":{"priceCurrency":"USD","price":"3","@type":"Offer"},"sku":"S1","name":"Lamp","@type":"Product","@context":"https://schema.org"}</script></head><body><p id="y" class="x">Some body text that is long enough to count.</p></body></html>';
    const base = { type: 'product' as const, id: 'p', url: 'https://shop.example/p', checksum: CHECKSUM };
    expect(extractItem({ ...base, html: b }, site, { receivedAt: RECEIVED })).toEqual(
      extractItem({ ...base, html: a }, site, { receivedAt: RECEIVED }),
    );
  });
  it('never throws on broken HTML', () => {
    const broken =
      '<html><head><title>Half<script type="application/ld+json">{"@type": </head><body><p>Unclosed <b><i>tags</p></div></span><table><tr><td>x';
    const c = extractItem(
      { type: 'page', id: 'b', url: 'https://shop.example/b', html: broken, checksum: CHECKSUM },
      site,
      { receivedAt: RECEIVED },
    );
    expect(c.primaryEntity.type).toBe('WebPage');
    expect(c.entities.length).toBeGreaterThanOrEqual(2);
  });
});

describe('cms fields, json sub-schemas and field mappings', () => {
  const item = {
    type: 'post' as const,
    id: 'post-1',
    url: 'https://Shop.Example/blog/hello/?utm_source=x#top',
    title: '  Hello   World ',
    language: 'en-gb',
    updated_at: '2026-01-10T08:00:00Z',
    checksum: CHECKSUM,
    text: '# Intro\n\nFirst paragraph mentions Jane Doe.\n\n## Details\n\nSecond paragraph.',
    json: {
      author: { name: 'Jane  Doe' },
      tags: ['News', { name: 'Lamps' }],
      categories: ['Blog'],
      price: { amount: '1.299,00', currency: 'eur', valid_until: '2026-03-01' },
      seo: { description: 'A hello post.' },
      fields: { colour: 'blue', body: 'Mapped body text.' },
    },
  };
  const c = extractItem(item, site, {
    receivedAt: RECEIVED,
    mappings: [
      {
        source_path: 'json.fields.colour',
        target: 'attribute',
        attribute_name: 'Color',
        provenance_method: 'cms_field',
      },
      { source_path: 'json.fields.body', target: 'text', provenance_method: 'cms_field' },
    ],
  });
  it('keys the entity by its normalised url and names it from the title', () => {
    expect(c.primaryEntity).toEqual({ type: 'BlogPosting', canonicalKey: 'https://shop.example/blog/hello' });
    expect(c.entities[0]).toMatchObject({
      name: 'Hello World',
      provenanceMethod: 'cms_field',
      attributes: { description: 'A hello post.' },
    });
    expect(c.language).toBe('en-GB');
    expect(c.source).toMatchObject({
      contentType: 'text/plain',
      lastSeenAt: '2026-01-10T08:00:00Z',
      title: 'Hello World',
    });
  });
  it('reads author, tags, categories, price and mapped attributes', () => {
    expect(relsOf(c, 'authored_by')).toEqual([
      { from: 'BlogPosting:https://shop.example/blog/hello', to: 'Person:jane doe', provenance: 'cms_field' },
    ]);
    expect(relsOf(c, 'tagged').map((r) => r.to)).toEqual(['DefinedTerm:tag/lamps', 'DefinedTerm:tag/news']);
    expect(relsOf(c, 'in_category').map((r) => r.to)).toEqual(['DefinedTerm:category/blog']);
    expect(factOf(c, 'price', 'cms_field')).toMatchObject({
      value: 1299,
      currency: 'EUR',
      display: '1299.00 EUR',
      validUntil: '2026-03-01',
    });
    expect(factOf(c, 'color', 'cms_field')?.value).toBe('blue');
    expect(factOf(c, 'date_modified', 'cms_field')?.value).toBe('2026-01-10T08:00:00Z');
  });
  it('keeps a field of several values as one fact of {"values": [...]}, one value as a plain value', () => {
    expect(factOf(c, 'tag', 'cms_field')).toMatchObject({
      value: { values: ['News', 'Lamps'] },
      display: 'News, Lamps',
    });
    expect(factOf(c, 'category', 'cms_field')?.value).toBe('Blog');
    expect(factOf(c, 'author', 'cms_field')?.value).toBe('Jane Doe');
    const several = extractItem(
      { ...item, json: { author: [{ name: 'Jane Doe' }, { name: 'John Roe' }], seo: { keywords: 'lamps, brass' } } },
      site,
      { receivedAt: RECEIVED },
    );
    expect(factOf(several, 'author', 'cms_field')).toMatchObject({
      value: { values: ['Jane Doe', 'John Roe'] },
      display: 'Jane Doe, John Roe',
    });
    expect(factOf(several, 'keywords', 'cms_field')?.value).toEqual({ values: ['lamps', 'brass'] });
  });
  it('chunks plain text and mapped text with heading paths and mentions', () => {
    expect(c.chunks.map((ch) => [ch.headingPath, ch.text])).toEqual([
      [['Intro'], 'First paragraph mentions Jane Doe.'],
      [['Intro', 'Details'], 'Second paragraph.\n\nMapped body text.'],
    ]);
    expect(c.chunks[0]!.mentions).toEqual([{ type: 'Person', canonicalKey: 'jane doe' }]);
  });
  it('uses application/json for a json-only item and receivedAt without updated_at', () => {
    const j = extractItem(
      {
        type: 'custom',
        id: 'j',
        url: 'https://shop.example/j',
        json: { description: 'Only json.' },
        checksum: CHECKSUM,
      },
      site,
      { receivedAt: RECEIVED },
    );
    expect(j.source).toMatchObject({ contentType: 'application/json', lastSeenAt: RECEIVED, title: null });
    expect(j.primaryEntity.type).toBe('Thing');
    expect(j.language).toBe('en');
  });
});

describe('chunk size', () => {
  it('keeps chunks under the token target and splits long paragraphs at sentences', () => {
    const sentence = 'This sentence is here to make a long paragraph longer. ';
    const html = `<html><body><article><h2>Long</h2><p>${sentence.repeat(120)}</p><p>Tiny.</p><p>Also tiny.</p></article></body></html>`;
    const c = extractItem({ type: 'page', id: 'l', url: 'https://shop.example/l', html, checksum: CHECKSUM }, site, {
      receivedAt: RECEIVED,
    });
    expect(c.chunks.length).toBeGreaterThan(1);
    for (const chunk of c.chunks) expect(estimateTokens(chunk.text)).toBeLessThanOrEqual(MAX_CHUNK_TOKENS);
    expect(c.chunks.at(-1)!.text.endsWith('Tiny.\n\nAlso tiny.')).toBe(true);
    expect(c.chunks.map((ch) => ch.position)).toEqual(c.chunks.map((_, i) => i));
  });
  it('estimates tokens as ceil(chars / 4)', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abcde')).toBe(2);
  });
});

describe('normalisation', () => {
  it('collapses every run of whitespace to one space and trims, whatever the run holds', () => {
    expect(cleanText('one two three')).toBe('one two three');
    expect(cleanText('  one two  ')).toBe('one two');
    expect(cleanText('one  two')).toBe('one two');
    expect(cleanText('one\ttwo\nthree\r\nfour')).toBe('one two three four');
    expect(cleanText('one\u00a0two \u2003 three\u3000four')).toBe('one two three four');
    expect(cleanText(' \n ')).toBe('');
    // The fast path (no run to collapse) and the full replace agree on every single-character gap.
    for (const gap of [' ', '\t', '\n', '\u00a0', '\u2028', '\ufeff']) expect(cleanText(`a${gap}b`)).toBe('a b');
  });
  it('normalises dates', () => {
    expect(normalizeDate('2024-06-25')).toBe('2024-06-25');
    expect(normalizeDate('2021-11-01T10:52:50+0100')).toBe('2021-11-01T09:52:50Z');
    expect(normalizeDate('2017-11-03 03:01:00.000000')).toBe('2017-11-03T03:01:00Z');
    expect(normalizeDate('2015-03-27T13:07:55.096Z')).toBe('2015-03-27T13:07:55.096Z');
    expect(normalizeDate('Tue, 25 Jun 2024 10:00:00 GMT')).toBe('2024-06-25T10:00:00Z');
    expect(normalizeDate('2024-02-30')).toBeNull();
    expect(normalizeDate('soon')).toBeNull();
  });
  it('normalises money, languages and urls', () => {
    expect(parseAmount('12,50')).toBe(12.5);
    expect(parseAmount('1,299.00')).toBe(1299);
    expect(formatMoney(12.5, 'EUR')).toBe('12.50 EUR');
    expect(formatMoney(0.125, 'USD')).toBe('0.125 USD');
    expect(normalizeLanguage('en-us')).toBe('en-US');
    expect(normalizeLanguage('zh_hant_tw')).toBe('zh-Hant-TW');
    expect(normalizeLanguage('not a tag')).toBeNull();
    expect(urlKey('HTTPS://Example.com:443/a/?b=2&a=1&utm_medium=x#f')).toBe('https://example.com/a?a=1&b=2');
    expect(urlKey('https://example.com/')).toBe('https://example.com/');
  });
});

describe('docs/extraction.md', () => {
  it('lists every predicate of the table with its importance and freshness', () => {
    const doc = readFileSync(new URL('../../../docs/extraction.md', import.meta.url), 'utf8');
    for (const [predicate, info] of Object.entries(PREDICATES)) {
      expect(doc).toContain(`| ${predicate} | ${info.importance} | ${info.freshness} |`);
    }
  });
});

describe('description and author from page text', () => {
  const extractHtml = (html: string) =>
    extractItem({ type: 'post', id: 'p', url: 'https://shop.example/p', html, checksum: CHECKSUM }, site, {
      receivedAt: RECEIVED,
    });
  const filler =
    'Lorem ipsum dolor sit amet, consectetur adipisicing elit, sed do eiusmod tempor incididunt ut labore.';

  it('takes a long loose-text <div> as the first paragraph, but not a short label', () => {
    const long = extractHtml(
      `<html><body><article><h1>T</h1><div>${filler}</div><p>Later paragraph of the article body.</p></article></body></html>`,
    );
    expect(factOf(long, 'description', 'text_extraction')?.value).toBe(filler);
    const label = extractHtml(
      `<html><body><article><h1>T</h1><div>From the free encyclopedia</div><p>${filler}</p></article></body></html>`,
    );
    expect(factOf(label, 'description', 'text_extraction')?.value).toBe(filler);
  });

  it('a microdata author on a whole author card is not taken as a name; the short one is', () => {
    const card = `<li itemprop="author"><a href="/j/jane">Jane Roe</a> Reporter covering science and technology. Follow her on social media; go to the page of this reporter for all her articles.</li>`;
    const c = extractHtml(
      `<html><body><article itemscope itemtype="https://schema.org/Article"><h1 itemprop="headline">T</h1><p itemprop="author">Jane Roe</p><ul>${card}</ul><p>${filler}</p></article></body></html>`,
    );
    expect(factOf(c, 'author', 'schema_org')?.value).toBe('Jane Roe');
  });
});
