#!/usr/bin/env node
// Agreement of the extractor with Mozilla Readability's metadata on a corpus of real pages.
// Usage: npm run build && node bench/corpus-quality.mjs [corpusDir] (default test/data/readability-dev)
// Each <page>/source.html is extracted as a `page` item; the survivor of each predicate (the
// graph store's rule: provenance, then confidence) is compared with expected-metadata.json after
// whitespace normalisation. Expected nulls (and empty strings) are not counted; languages are
// compared case-insensitively (BCP-47 tags are); dates are compared as instants.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import { extractItem } from '../dist/extract/index.js';

const corpus = resolve(process.argv[2] ?? fileURLToPath(new URL('../test/data/readability-dev', import.meta.url)));
const RANK = { cms_field: 0, schema_org: 1, seo_meta: 2, text_extraction: 3, llm_inferred: 4 };
const norm = (v) => (v === null || v === undefined ? null : String(v).replace(/\s+/g, ' ').trim());

function survivor(facts, subject, predicate) {
  const candidates = facts.filter((f) => f.predicate === predicate && f.subject.type === subject.type && f.subject.canonicalKey === subject.canonicalKey);
  candidates.sort((a, b) => RANK[a.provenanceMethod] - RANK[b.provenanceMethod] || b.confidence - a.confidence);
  // A fact of several values ({"values": [...]}) compares by its display, the values joined with ", ".
  return candidates[0] === undefined ? null : candidates[0].display !== undefined && typeof candidates[0].value === 'object' ? candidates[0].display : candidates[0].value;
}

function pageUrl(html, name) {
  const m = /<link[^>]+rel=["']canonical["'][^>]*href=["'](https?:[^"']+)["']/i.exec(html)
    ?? /<meta[^>]+property=["']og:url["'][^>]*content=["'](https?:[^"']+)["']/i.exec(html);
  if (m) {
    try {
      const url = new URL(m[1]);
      return { url: url.toString(), domain: url.hostname };
    } catch { /* fall through */ }
  }
  return { url: `https://example.com/${name}`, domain: 'example.com' };
}

function instant(value) {
  if (value === null) return null;
  const text = String(value).trim().replace(' ', 'T').replace(/(\.\d{3})\d+/, '$1').replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  const ms = Date.parse(/T/.test(text) && !/(Z|[+-]\d{2}:\d{2})$/.test(text) ? text + 'Z' : text);
  return Number.isNaN(ms) ? norm(value) : ms;
}

const fields = ['title', 'byline', 'excerpt', 'lang', 'siteName', 'publishedTime'];
const stats = Object.fromEntries(fields.map((f) => [f, { hit: 0, total: 0, misses: [] }]));
const pages = readdirSync(corpus).filter((d) => existsSync(join(corpus, d, 'source.html'))).sort();
for (const name of pages) {
  const html = readFileSync(join(corpus, name, 'source.html'), 'utf8');
  const expected = JSON.parse(readFileSync(join(corpus, name, 'expected-metadata.json'), 'utf8'));
  const { url, domain } = pageUrl(html, name);
  const site = { websiteId: 'bench', domain, brand: domain, defaultLanguage: 'und', plan: 'free', verification: { method: null, state: 'pending' }, aliases: [] };
  const item = { type: 'page', id: name, url, html, checksum: 'sha256:' + createHash('sha256').update(html).digest('hex') };
  const c = extractItem(item, site, { receivedAt: '2026-01-01T00:00:00Z' });
  const primary = c.primaryEntity;
  const entity = c.entities[0];
  const siteEntity = c.entities.find((e) => e.type === 'Organization' && e.canonicalKey === domain.toLowerCase());
  const actual = {
    title: entity.name,
    byline: survivor(c.facts, primary, 'author'),
    excerpt: entity.attributes.description ?? null,
    lang: c.language === 'und' ? null : c.language,
    siteName: siteEntity ? survivor(c.facts, siteEntity, 'site_name') : null,
    publishedTime: survivor(c.facts, primary, 'date_published'),
  };
  for (const field of fields) {
    const want = norm(expected[field]);
    if (want === null || want === '') continue;
    const got = norm(actual[field]);
    const s = stats[field];
    s.total += 1;
    const ok = field === 'lang' ? got !== null && got.toLowerCase() === want.toLowerCase()
      : field === 'publishedTime' ? got !== null && instant(got) === instant(want)
      : got === want;
    if (ok) s.hit += 1;
    else s.misses.push(`${name}: expected ${JSON.stringify(want).slice(0, 120)} got ${JSON.stringify(got)?.slice(0, 120)}`);
  }
}

const targets = { title: 90, byline: 80, excerpt: 80, lang: 95 };
console.log(`corpus ${corpus}: ${pages.length} pages`);
for (const field of fields) {
  const s = stats[field];
  const rate = s.total === 0 ? 100 : (100 * s.hit) / s.total;
  const target = targets[field] === undefined ? '' : ` (target >= ${targets[field]} %)`;
  console.log(`${field.padEnd(14)} ${rate.toFixed(1).padStart(5)} %  ${s.hit}/${s.total}${target}`);
}
for (const field of fields) {
  if (stats[field].misses.length === 0) continue;
  console.log(`\nmisses: ${field}`);
  for (const miss of stats[field].misses) console.log('  ' + miss);
}
