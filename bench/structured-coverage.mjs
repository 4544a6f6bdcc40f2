#!/usr/bin/env node
// How much of what a page's structured data states reaches the node (issue 18), by syntax, each
// read by someone else's parser: every literal value the jsonld library (a reference JSON-LD
// processor, offline schema.org context) expands out of a page's ld+json blocks, and every
// literal and IRI value the RDF parsers rdfa-streaming-parser (RDFa 1.1 in HTML, <meta property>
// included) and microdata-rdf-streaming-parser (Microdata to RDF) read from the page, against the
// page's contribution from our extractor. A value reaches the node when a fact's value or display,
// an entity's name or type, or a Q&A equals it (folded: whitespace and case, HTML tags, a
// schema.org term by its name, numbers by value, dates by instant or day, a time to the minute),
// a fact's text holds it as whole words, or the chunks hold it (long text); values of the page's
// machinery (potentialAction, breadcrumb links, media sizes, social platforms' ids) and empty
// values are not counted. The measure is bench/lib/structured-values.mjs, which
// test/ingest/extract/independent-parsers.test.ts shares. Pages: the development corpus and the
// extractor's hand-written test pages.
// Usage: npm run build && node bench/structured-coverage.mjs [--misses] [dir ...]
import { readdirSync, readFileSync, existsSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { extractItem } from '../dist/ingest/extract/index.js';
import { reachesContribution, statedValues, SYNTAXES } from './lib/structured-values.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const showMisses = process.argv.includes('--misses');
const dirs = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const sources =
  dirs.length > 0 ? dirs : [join(ROOT, 'test/data/readability-dev'), join(ROOT, 'test/ingest/extract/pages')];

function pages() {
  const out = [];
  for (const dir of sources) {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const file = statSync(path).isDirectory() ? join(path, 'source.html') : path;
      if (!file.endsWith('.html') || !existsSync(file)) continue;
      out.push({ name: `${basename(dir)}/${name}`, html: readFileSync(file, 'utf8') });
    }
  }
  return out;
}

const totals = Object.fromEntries(SYNTAXES.map((syntax) => [syntax, { hit: 0, total: 0, pages: 0 }]));
const perPage = [];
const missedProperties = new Map();
for (const { name, html } of pages()) {
  const url = 'https://bench.example/' + encodeURIComponent(name);
  const stated = await statedValues(html, url);
  if (SYNTAXES.every((syntax) => stated[syntax].length === 0)) continue;
  const item = { type: 'page', id: name, url, html, checksum: 'sha256:' + '0'.repeat(64) };
  const site = {
    websiteId: 'bench',
    domain: 'bench.example',
    brand: 'Bench',
    defaultLanguage: 'und',
    plan: 'free',
    verification: { method: null, state: 'pending' },
    aliases: [],
  };
  const reaches = reachesContribution(extractItem(item, site, { receivedAt: '2026-01-01T00:00:00Z' }));
  const counts = {};
  const misses = [];
  for (const syntax of SYNTAXES) {
    const values = stated[syntax];
    let pageHit = 0;
    for (const [property, value] of values) {
      if (reaches(value)) pageHit++;
      else {
        misses.push(`${syntax} ${property}=${JSON.stringify(value.slice(0, 60))}`);
        missedProperties.set(property, (missedProperties.get(property) ?? 0) + 1);
      }
    }
    totals[syntax].total += values.length;
    totals[syntax].hit += pageHit;
    if (values.length > 0) totals[syntax].pages++;
    counts[syntax] = `${pageHit}/${values.length}`;
  }
  perPage.push({ name, counts, misses });
}
const percent = ({ hit, total }) => (total === 0 ? '-' : `${((100 * hit) / total).toFixed(1)} %`);
const all = SYNTAXES.reduce(
  (sum, syntax) => ({ hit: sum.hit + totals[syntax].hit, total: sum.total + totals[syntax].total }),
  { hit: 0, total: 0 },
);
console.log(
  `structured values that reach the node: ${percent(all)} (${all.hit}/${all.total}) over ${perPage.length} pages`,
);
for (const syntax of SYNTAXES)
  console.log(
    `  ${syntax.padEnd(10)} ${percent(totals[syntax]).padStart(8)} (${totals[syntax].hit}/${totals[syntax].total}) over ${totals[syntax].pages} pages`,
  );
console.log(`  ${'page'.padEnd(48)} ${SYNTAXES.map((s) => s.padStart(10)).join('')}`);
for (const p of perPage) {
  console.log(
    `  ${p.name.padEnd(48)} ${SYNTAXES.map((s) => (p.counts[s] === '0/0' ? '' : p.counts[s]).padStart(10)).join('')}`,
  );
  if (showMisses) for (const m of p.misses) console.log(`      miss ${m}`);
}
console.log(
  'most missed properties:',
  [...missedProperties]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 25)
    .map(([k, v]) => `${k} ${v}`)
    .join(', '),
);
