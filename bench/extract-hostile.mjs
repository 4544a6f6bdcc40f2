#!/usr/bin/env node
// Extraction time of pages that state one kind of thing 20,000 times (issue 18's "no website
// blocked by its own content"): the structured-data shapes whose handling was once quadratic in
// the count (de-duplicated names, chunk mentions, name aliases), and the links and bylines the
// page-metadata rules walk (links home, a byline's marked authors), and JSON-LD that is not JSON
// (the repair), footers' copyright lines and plain times under the title. Reports ms per page shape, the
// entities and facts made, and the page's size; one run each, after a warm-up page.
// Usage: npm run build && node bench/extract-hostile.mjs [--count N]
import { extractItem } from '../dist/ingest/extract/index.js';

const arg = process.argv.indexOf('--count');
const N = arg > 0 ? Number(process.argv[arg + 1]) : 20_000;
const site = {
  websiteId: 'bench',
  domain: 'bench.example',
  brand: 'Bench',
  defaultLanguage: 'und',
  plan: 'free',
  verification: { method: null, state: 'pending' },
  aliases: [],
};
const ld = (value) =>
  `<script type="application/ld+json">${JSON.stringify({ '@context': 'https://schema.org', ...value })}</script>`;
const times = (make) => Array.from({ length: N }, (_, i) => make(i));

const SHAPES = {
  'JSON-LD @graph of people with urls': ld({
    '@graph': times((i) => ({ '@type': 'Person', name: `Person Number${i}`, url: `https://x.example/p/${i}` })),
  }),
  'JSON-LD authors as text': ld({
    '@type': 'Article',
    headline: 'H',
    author: times((i) => `Person Number${i} and Other Person${i}`),
  }),
  'article:author and article:tag metas': times(
    (i) =>
      `<meta property="article:author" content="https://x.example/a/${i}"><meta property="article:tag" content="tag ${i}">`,
  ).join(''),
  'organizations of one name, and that name as text':
    ld({ '@graph': times((i) => ({ '@type': 'Organization', name: 'Acme', url: `https://x.example/o/${i}` })) }) +
    ld({ '@type': 'Article', headline: 'H', publisher: 'Acme' }),
  'microdata author links': `<div itemscope itemtype="https://schema.org/Article">${times((i) => `<a itemprop="author" href="/a/${i}">Person Number${i}</a>`).join('')}</div>`,
  'microdata people': times(
    (i) => `<div itemscope itemtype="https://schema.org/Person"><span itemprop="name">Person Number${i}</span></div>`,
  ).join(''),
  'ItemList members': ld({
    '@type': 'ItemList',
    itemListElement: times((i) => ({
      '@type': 'ListItem',
      position: i,
      item: { '@type': 'Product', name: `Product ${i}` },
    })),
  }),
  'reviews of one product': ld({
    '@type': 'Product',
    name: 'P',
    review: times((i) => ({ '@type': 'Review', name: `Review ${i}`, reviewBody: 'ok' })),
  }),
  'links home holding images (text logos)': times((i) => `<a href="/"><img src="/i${i}.png"> Home ${i}</a>`).join(''),
  'a link home of many children': `<a href="/">${times((i) => `<span>part ${i}</span>`).join('')}</a>`,
  'a JSON-LD block nested deep and never closed (repair refused)': `<script type="application/ld+json">${times(() => '{"a":').join('')}</script>`,
  'JSON-LD objects side by side (repaired)': `<script type="application/ld+json">${times((i) => `{"@type":"Person","name":"Person Number${i}"}`).join(' ')}</script>`,
  'a byline of many marked authors': `<h1>Title</h1><div class="byline">${times((i) => `<a class="author" href="/a/${i}">P${i}</a>`).join('')}</div>`,
  'footers of copyright lines': times((i) => `<footer><p>© 2024 ${'-,'.repeat(5)}${i}</p></footer>`).join(''),
  'one copyright line of separators': `<footer><p>© 2024 ${times(() => '-,').join('')}x</p></footer>`,
  'labelled date lines before the body text': times(
    (i) => `<span>Published on: June ${1 + (i % 28)}, 2024 </span>`,
  ).join(''),
  'plain times under the title': `<h1>Title</h1>${times((i) => `<span>updated <time datetime="2024-01-${String(1 + (i % 28)).padStart(2, '0')}">d</time></span>`).join('')}`,
};

const page = (body) => `<html><head><title>A page of many things</title></head><body>${body}<p>Text.</p></body></html>`;
const extract = (html) =>
  extractItem(
    { type: 'page', id: 'h', url: 'https://bench.example/h', html, checksum: 'sha256:' + '0'.repeat(64) },
    site,
    { receivedAt: '2026-01-01T00:00:00Z' },
  );
extract(page(Object.values(SHAPES)[0].slice(0, 50_000)));
const rows = [];
for (const [shape, body] of Object.entries(SHAPES)) {
  const html = page(body);
  const t = performance.now();
  const c = extract(html);
  rows.push({
    shape,
    ms: Math.round(performance.now() - t),
    entities: c.entities.length,
    facts: c.facts.length,
    mb: +(html.length / 1e6).toFixed(1),
  });
}
console.log(JSON.stringify({ count: N, pages: rows }, null, 2));
