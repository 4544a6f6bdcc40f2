import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractItem } from '../../../src/ingest/extract/index.js';
// A plain ES module, the measure bench/structured-coverage.mjs reports.
import { reachesContribution, statedValues } from '../../../bench/lib/structured-values.mjs';
import { CHECKSUM, RECEIVED, site } from './helpers.js';

/**
 * Issue 18, checked against other projects' parsers of the standards: rdfa-streaming-parser
 * (RDFa 1.1), microdata-rdf-streaming-parser (Microdata) and the jsonld library (JSON-LD) read the
 * hand-written test pages, and what they read must reach the contribution of our own readers.
 */
const PAGES = join(import.meta.dirname, 'pages');
/** Breadcrumb links: the trail's names are its fact, its urls are not kept (docs/decisions.md). */
const NOT_KEPT = new Set(['item']);

type Stated = Record<'JSON-LD' | 'Microdata' | 'RDFa', Array<[string, string]>>;

async function readPages(): Promise<Array<{ name: string; stated: Stated; reaches: (value: string) => boolean }>> {
  const pages = [];
  for (const name of readdirSync(PAGES)
    .filter((n) => n.endsWith('.html'))
    .sort()) {
    const html = readFileSync(join(PAGES, name), 'utf8');
    const url = `https://pages.example/${name}`;
    const stated = (await statedValues(html, url)) as Stated;
    const c = extractItem({ type: 'page', id: name, url, html, checksum: CHECKSUM }, site, { receivedAt: RECEIVED });
    pages.push({ name, stated, reaches: reachesContribution(c) as (value: string) => boolean });
  }
  return pages;
}

describe('the test pages read by other parsers', async () => {
  const pages = await readPages();

  it.each(['Microdata', 'RDFa'] as const)(
    'every %s value another parser reads reaches the contribution (breadcrumb links aside)',
    (syntax) => {
      const stated = pages.flatMap((p) =>
        p.stated[syntax].map(([property, value]) => ({ page: p.name, property, value, reached: p.reaches(value) })),
      );
      expect(stated.length).toBeGreaterThan(20);
      expect(stated.filter((s) => !s.reached && !NOT_KEPT.has(s.property))).toEqual([]);
    },
  );

  it('at least 95 % of the JSON-LD values the jsonld library expands reach the contribution', () => {
    const stated = pages.flatMap((p) => p.stated['JSON-LD'].map(([, value]) => p.reaches(value)));
    expect(stated.length).toBeGreaterThan(250);
    expect(stated.filter(Boolean).length / stated.length).toBeGreaterThanOrEqual(0.95);
  });
});

/** Markup shapes the hand-written pages do not show, each read whole by the other parsers. */
const ld = (value: object) => `<script type="application/ld+json">${JSON.stringify(value)}</script>`;
const SNIPPETS: Record<string, string> = {
  'RDFa with a declared prefix':
    '<div prefix="s: http://schema.org/" typeof="s:Event"><span property="s:name">Quay Night Market</span><time property="s:startDate" datetime="2026-07-04T18:00:00+01:00">4 July</time><span property="s:location" typeof="s:Place"><span property="s:name">North Quay</span><span property="s:address">1 Quay Road, Whitby</span></span></div>',
  'RDFa offers, brand and a term by link':
    '<div vocab="http://schema.org/" typeof="Product"><span property="name">Harbour Kettle</span><div property="offers" typeof="Offer"><meta property="price" content="49.00"><meta property="priceCurrency" content="EUR"><link property="availability" href="http://schema.org/InStock"></div><div property="brand" typeof="Brand"><span property="name">Quay Goods</span></div></div>',
  'RDFa resource and a typed author':
    '<div vocab="https://schema.org/" typeof="Book" resource="#book"><span property="name">The Quiet Orchard</span><span property="isbn">9780000000002</span><span property="author" typeof="Person" resource="https://books.example/authors/ida-kerr"><span property="name">Ida Kerr</span></span></div>',
  'RDFa content beside text':
    '<div vocab="https://schema.org/" typeof="Event"><span property="name">Lantern Walk</span><span property="startDate" content="2026-12-12T17:00:00Z">12 December, 5 pm</span><span property="eventStatus" resource="https://schema.org/EventScheduled"></span></div>',
  'Microdata offers, address and a link term':
    '<div itemscope itemtype="https://schema.org/Event"><span itemprop="name">Quay Night Market</span><time itemprop="startDate" datetime="2026-07-04T18:00:00+01:00">4 July</time><div itemprop="location" itemscope itemtype="https://schema.org/Place"><span itemprop="name">North Quay</span><div itemprop="address" itemscope itemtype="https://schema.org/PostalAddress"><span itemprop="streetAddress">1 Quay Road</span><span itemprop="addressLocality">Whitby</span></div></div><div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><data itemprop="price" value="5">£5</data><meta itemprop="priceCurrency" content="GBP"><link itemprop="availability" href="https://schema.org/InStock"></div></div>',
  'Microdata person with mailto: and a page':
    '<div itemscope itemtype="https://schema.org/Person" itemid="https://pages.example/people/ola"><span itemprop="name">Ola Berg</span><span itemprop="jobTitle">Harbour master</span><a itemprop="sameAs" href="https://social.example/olaberg">social</a><span itemprop="worksFor" itemscope itemtype="https://schema.org/Organization"><span itemprop="name">Harbour Trust</span></span><a itemprop="email" href="mailto:ola@harbour.example">mail</a></div>',
  'Microdata product with rating and review':
    '<div itemscope itemtype="https://schema.org/Product"><h1 itemprop="name">Quay Lamp</h1><span itemprop="sku">QL-1</span><div itemprop="aggregateRating" itemscope itemtype="https://schema.org/AggregateRating"><span itemprop="ratingValue">4.6</span> of <span itemprop="reviewCount">87</span></div><div itemprop="review" itemscope itemtype="https://schema.org/Review"><span itemprop="author" itemscope itemtype="https://schema.org/Person"><span itemprop="name">Ida Kerr</span></span><p itemprop="reviewBody">Bright and warm, and the switch feels solid.</p></div></div>',
  'JSON-LD names in two languages': ld({
    '@context': 'https://schema.org',
    '@type': 'Product',
    name: [
      { '@value': 'Quay Lamp', '@language': 'en' },
      { '@value': 'Kailampe', '@language': 'de' },
    ],
    sku: 'QL-1',
  }),
  'JSON-LD expanded keys': ld({
    '@type': 'http://schema.org/Product',
    'http://schema.org/name': 'Quay Lamp',
    'http://schema.org/sku': 'QL-2',
  }),
  'JSON-LD keys with a prefix': ld({
    '@context': { s: 'http://schema.org/' },
    '@type': 's:Product',
    's:name': 'Quay Lamp',
    's:sku': 'QL-3',
  }),
  'JSON-LD graph of references': ld({
    '@context': 'https://schema.org',
    '@graph': [
      { '@type': 'Article', '@id': '#a', headline: 'Quay repairs', author: { '@id': '#p' }, about: { '@id': '#t' } },
      { '@type': 'Person', '@id': '#p', name: 'Ana Lind', jobTitle: 'Reporter' },
      { '@type': 'Thing', '@id': '#t', name: 'North Quay' },
    ],
  }),
};

describe('markup shapes read by other parsers', () => {
  it.each(Object.keys(SNIPPETS))('%s: every value reaches the contribution', async (name) => {
    const html = `<html><head><title>A page with ${name}</title></head><body>${SNIPPETS[name]}</body></html>`;
    const url = 'https://pages.example/shape';
    const stated = (await statedValues(html, url)) as Stated;
    const values = [...stated['JSON-LD'], ...stated.Microdata, ...stated.RDFa];
    expect(values.length).toBeGreaterThan(1);
    const reaches = reachesContribution(
      extractItem({ type: 'page', id: 'shape', url, html, checksum: CHECKSUM }, site, { receivedAt: RECEIVED }),
    ) as (value: string) => boolean;
    expect(values.filter(([, value]) => !reaches(value))).toEqual([]);
  });
});
