#!/usr/bin/env node
// Extraction throughput: 10,000 generated pages (10 to 30 KB, JSON-LD + OpenGraph + article
// text), extracted in one process. Reports pages/s, peak RSS and the ratio to htmlparser2 alone
// parsing the same pages in the same run. Usage: npm run bench:extract [-- --pages N]
import { createHash } from 'node:crypto';
import { parseDocument } from 'htmlparser2';
import { extractItem } from '../dist/ingest/extract/index.js';

const pagesArg = process.argv.indexOf('--pages');
const PAGES = pagesArg > 0 ? Number(process.argv[pagesArg + 1]) : 10_000;
const TARGET = 1000;

// Deterministic generator (mulberry32), seeded.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const WORDS =
  'the a garden lamp oak table chair coffee blue green river light stone market price order shipping fast quality warm evening morning city design craft handmade linen wool steel glass paper modern classic simple'.split(
    ' ',
  );
function sentence(r, n) {
  const words = [];
  for (let i = 0; i < n; i += 1) words.push(WORDS[Math.floor(r() * WORDS.length)]);
  const s = words.join(' ');
  return s[0].toUpperCase() + s.slice(1) + (r() < 0.3 ? ', indeed.' : '.');
}
function page(i) {
  const r = rng(0x5eed + i);
  const target = 10_000 + Math.floor(r() * 20_000);
  const title = sentence(r, 6).slice(0, -1);
  const price = (5 + Math.floor(r() * 500) + 0.99).toFixed(2);
  const ld = {
    '@context': 'https://schema.org',
    '@graph': [
      {
        '@type': 'Organization',
        '@id': 'https://shop.example/#org',
        name: 'Example Shop',
        url: 'https://shop.example/',
      },
      {
        '@type': 'Product',
        '@id': `https://shop.example/p/${i}#product`,
        name: title,
        sku: `SKU-${i}`,
        description: sentence(r, 20),
        brand: { '@type': 'Brand', name: `Brand ${i % 37}` },
        offers: {
          '@type': 'Offer',
          price,
          priceCurrency: 'EUR',
          availability: 'https://schema.org/InStock',
          priceValidUntil: '2026-12-31',
          seller: { '@id': 'https://shop.example/#org' },
        },
        aggregateRating: {
          '@type': 'AggregateRating',
          ratingValue: (3 + r() * 2).toFixed(1),
          reviewCount: Math.floor(r() * 900),
        },
      },
    ],
  };
  const head = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title} | Example Shop</title>
<meta name="description" content="${sentence(r, 18)}"><meta property="og:title" content="${title}"><meta property="og:type" content="product">
<meta property="og:site_name" content="Example Shop"><meta property="og:image" content="https://shop.example/img/${i}.jpg">
<meta name="twitter:card" content="summary"><link rel="canonical" href="https://shop.example/p/${i}">
<script type="application/ld+json">${JSON.stringify(ld)}</script></head><body>
<header class="site-header"><nav><ul>${Array.from({ length: 8 }, (_, k) => `<li><a href="/c/${k}">${WORDS[k]}</a></li>`).join('')}</ul></nav></header>
<main><article><h1>${title}</h1><p class="byline">By Author ${i % 53}</p>`;
  const parts = [head];
  let size = head.length;
  let section = 0;
  while (size < target - 400) {
    let chunk;
    const kind = r();
    if (kind < 0.12) chunk = `<h2>${sentence(r, 4).slice(0, -1)}${r() < 0.3 ? '?' : ''}</h2>`;
    else if (kind < 0.18)
      chunk = `<dl><dt>Material</dt><dd>${WORDS[section % WORDS.length]}</dd><dt>Weight</dt><dd>${section} kg</dd></dl>`;
    else if (kind < 0.22) chunk = `<ul>${Array.from({ length: 4 }, () => `<li>${sentence(r, 7)}</li>`).join('')}</ul>`;
    else
      chunk = `<p>${sentence(r, 12 + Math.floor(r() * 30))} <a href="/x/${section}">${sentence(r, 3)}</a> ${sentence(r, 15)}</p>`;
    parts.push(chunk);
    size += chunk.length;
    section += 1;
  }
  parts.push('</article></main><footer class="footer"><p>© Example Shop</p></footer></body></html>');
  return parts.join('\n');
}

const site = {
  websiteId: 'bench',
  domain: 'shop.example',
  brand: 'Example Shop',
  defaultLanguage: 'en',
  plan: 'free',
  verification: { method: null, state: 'pending' },
  aliases: [],
};
const items = [];
let bytes = 0;
for (let i = 0; i < PAGES; i += 1) {
  const html = page(i);
  bytes += html.length;
  items.push({
    type: 'product',
    id: `p-${i}`,
    url: `https://shop.example/p/${i}`,
    html,
    checksum: 'sha256:' + createHash('sha256').update(html).digest('hex'),
  });
}

// Warm-up, then parser alone, then the extractor, on the same pages.
for (let i = 0; i < Math.min(200, PAGES); i += 1) {
  parseDocument(items[i].html);
  extractItem(items[i], site, { receivedAt: '2026-01-01T00:00:00Z' });
}
let t0 = process.hrtime.bigint();
let nodes = 0;
for (const item of items)
  nodes += parseDocument(item.html, { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true })
    .children.length;
const parseMs = Number(process.hrtime.bigint() - t0) / 1e6;
t0 = process.hrtime.bigint();
let facts = 0;
let chunks = 0;
for (const item of items) {
  const c = extractItem(item, site, { receivedAt: '2026-01-01T00:00:00Z' });
  facts += c.facts.length;
  chunks += c.chunks.length;
}
const extractMs = Number(process.hrtime.bigint() - t0) / 1e6;
const rate = (PAGES * 1000) / extractMs;
const parseRate = (PAGES * 1000) / parseMs;
console.log(
  `pages: ${PAGES}, average ${(bytes / PAGES / 1024).toFixed(1)} KB, ${facts} facts, ${chunks} chunks (${nodes > 0 ? 'parsed' : ''})`,
);
console.log(`parser only (htmlparser2): ${parseRate.toFixed(0)} pages/s (${parseMs.toFixed(0)} ms)`);
console.log(`extractItem:               ${rate.toFixed(0)} pages/s (${extractMs.toFixed(0)} ms), target >= ${TARGET}`);
console.log(`ratio extract / parse time: ${(extractMs / parseMs).toFixed(2)}x`);
console.log(`peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
process.exitCode = rate >= TARGET ? 0 : 1;
