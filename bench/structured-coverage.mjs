#!/usr/bin/env node
// How much of what a page's structured data states reaches the node (issue 18), by syntax, each
// read by someone else's parser: every literal value the jsonld library (a reference JSON-LD
// processor, offline schema.org context) expands out of a page's ld+json blocks, and every
// literal and IRI value the RDF parsers rdfa-streaming-parser (RDFa 1.1 in HTML, <meta property>
// included) and microdata-rdf-streaming-parser (Microdata to RDF) read from the page, against the
// page's contribution from our extractor. A value reaches the
// node when a fact's value or display, an entity's name, or a Q&A answer equals it (whitespace and
// case folded; HTML tags dropped; a schema.org term by its name; numbers by value; dates and times
// by their instant or their calendar date; a currency, unit or validity by the fact's), a fact's text holds
// it as whole words (a part the node composes: an address's street in its address, a relative
// url made absolute), or a text chunk holds it (long text such as articleBody). Values of properties that describe the
// page's plumbing rather than its content (potentialAction, breadcrumb, ...; PLUMBING below) are
// not counted, nor empty values. Pages: the development corpus's pages with JSON-LD and the extractor's
// hand-written test pages.
// Usage: npm run build && node bench/structured-coverage.mjs [--misses] [dir ...]
import { readdirSync, readFileSync, existsSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'htmlparser2';
import jsonld from 'jsonld';
import { MicrodataRdfParser } from 'microdata-rdf-streaming-parser';
import { RdfaParser } from 'rdfa-streaming-parser';
import { extractItem } from '../dist/extract/index.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const showMisses = process.argv.includes('--misses');
const dirs = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const sources = dirs.length > 0 ? dirs : [join(ROOT, 'test/data/readability-dev'), join(ROOT, 'test/extract/pages')];

/** Properties about the page's machinery, not about the things it describes. */
const PLUMBING = new Set(['potentialAction', 'breadcrumb', 'mainEntityOfPage', 'isPartOf', 'speakable', 'primaryImageOfPage', 'target', 'query-input',
  'encodingFormat', 'width', 'height', 'caption', 'contentUrl', 'thumbnailUrl', 'position', 'inLanguage', 'isAccessibleForFree', 'cssSelector', 'xpath']);

const documentLoader = async (url) => {
  if (/^https?:\/\/schema\.org\/?/.test(url)) return { contextUrl: undefined, documentUrl: url, document: { '@context': { '@vocab': 'https://schema.org/' } } };
  throw new Error(`offline: ${url}`);
};

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

function ldBlocks(html) {
  const blocks = [];
  const visit = (node) => {
    if (node.type === 'script' && /ld\+json/i.test(node.attribs?.type ?? '')) blocks.push(node.children.map((c) => c.data ?? '').join(''));
    for (const child of node.children ?? []) visit(child);
  };
  visit(parseDocument(html));
  return blocks;
}

/** Every literal the reference JSON-LD processor expands, as [property, value]. */
async function jsonLdValues(html) {
  const values = [];
  for (const block of ldBlocks(html)) {
    let doc;
    try {
      // CDATA wrappers and HTML comments around the JSON, as the corpus's serialized pages have them.
      doc = JSON.parse(block.trim().replace(/^<!\[CDATA\[|\]\]>$/g, '').replace(/^<!--|-->$/g, '').trim());
    } catch {
      continue;
    }
    let expanded;
    try {
      expanded = await jsonld.expand(doc, { documentLoader });
    } catch {
      continue;
    }
    const walk = (node, property) => {
      if (Array.isArray(node)) return node.forEach((n) => walk(n, property));
      if (node === null || typeof node !== 'object') return;
      if ('@value' in node) {
        if (!PLUMBING.has(property) && String(node['@value']).trim() !== '') values.push([property, String(node['@value'])]);
        return;
      }
      if ('@list' in node) return walk(node['@list'], property);
      for (const [key, value] of Object.entries(node)) {
        if (key.startsWith('@')) continue;
        const local = key.replace(/^https?:\/\/schema\.org\//, '');
        if (PLUMBING.has(local) || PLUMBING.has(property)) continue;
        walk(value, local);
      }
    };
    walk(expanded, null);
  }
  return values;
}

const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
/**
 * Predicates that describe no content: the parsers' own bookkeeping and HTML's link relations
 * (stylesheet, icon, alternate); social platforms' machinery in <meta property> (Facebook app and
 * admin ids, App Links, Twitter's card kind and account id, WordPress's API root); an image's or
 * video's pixel size and MIME type (as PLUMBING leaves out width, height and encodingFormat).
 */
const RDF_PLUMBING = new RegExp([
  '^http://www\\.w3\\.org/(ns/rdfa#|1999/xhtml/vocab#)', '^http://ogp\\.me/ns/fb#', '^http://www\\.facebook\\.com/2008/fbml', '^(fb|al):',
  '^twitter:(card|account_id)$', '^https://api\\.w\\.org/', '[:#](image|video|audio)(:secure_url)?:(width|height|type)$',
].join('|'));

/** Every value (literal or IRI; not a type, not a blank node) an RDF parser reads from the page, as [property, value]. */
function rdfValues(Parser, html, url) {
  return new Promise((resolve, reject) => {
    const values = [];
    const parser = new Parser({ baseIRI: url, contentType: 'text/html' });
    parser.on('data', (quad) => {
      const property = quad.predicate.value;
      if (property === RDF_TYPE || RDF_PLUMBING.test(property) || quad.object.termType === 'BlankNode') return;
      const local = property.replace(/^https?:\/\/schema\.org\//, '');
      if (!PLUMBING.has(local) && quad.object.value.trim() !== '') values.push([local, quad.object.value]);
    });
    parser.on('error', reject);
    parser.on('end', () => resolve(values));
    parser.end(html);
  });
}

const SYNTAXES = ['JSON-LD', 'Microdata', 'RDFa'];
async function statedValues(html, url) {
  return {
    'JSON-LD': await jsonLdValues(html),
    Microdata: await rdfValues(MicrodataRdfParser, html, url),
    RDFa: await rdfValues(RdfaParser, html, url),
  };
}

const words = (text) => String(text).toLowerCase().replace(/<[^>]*>/g, ' ').split(/[^\p{L}\p{N}]+/u).filter(Boolean);
const fold = (text) => String(text).replace(/\s+/g, ' ').trim().toLowerCase();
/** The forms a stated value may take in the node: as written, without HTML tags, a schema.org term by its name ("InStock"). */
function forms(value) {
  const text = fold(value);
  const out = [text];
  const plain = fold(String(value).replace(/<[^>]*>/g, ''));
  if (plain !== text) out.push(plain);
  // A time of day to the minute ("08:00:00" is stated "08:00"); OpenGraph's "in stock" is schema.org's InStock.
  const time = /^(\d{2}:\d{2})(:00)?$/.exec(text);
  if (time !== null) out.push(time[1]);
  if (/^[a-z]+( [a-z]+){1,3}$/.test(text)) out.push(text.replace(/ /g, ''));
  // A byline's label ("By Jane Roe") is not part of the name.
  if (/^by\s/.test(text)) out.push(text.slice(3).trim());
  const term = /^https?:\/\/schema\.org\/([A-Za-z]+)$/.exec(String(value).trim());
  if (term !== null) out.push(term[1].toLowerCase());
  const number = Number(text.replace(/,/g, ''));
  if (text !== '' && Number.isFinite(number)) out.push(`#${number}`);
  const instant = Date.parse(text);
  if (/^\d{4}-\d{2}-\d{2}/.test(text) && !Number.isNaN(instant)) out.push(`@${instant}`, `d${text.slice(0, 10)}`);
  return out;
}

/** What the contribution says, in the forms values are compared by. */
function reached(c) {
  const known = new Set();
  const add = (v) => {
    if (v === null || v === undefined) return;
    if (typeof v === 'object') {
      for (const inner of Array.isArray(v) ? v : Object.values(v)) add(inner);
      return;
    }
    for (const form of forms(v)) known.add(form);
  };
  const phrases = [];
  for (const f of c.facts) {
    (add(f.value), add(f.display), add(f.currency), add(f.unit), add(f.validFrom), add(f.validUntil));
    for (const v of [f.display, ...(typeof f.value === 'object' && f.value !== null ? Object.values(f.value).flat() : [f.value])]) if (typeof v === 'string') phrases.push(fold(v));
  }
  // An entity's type: og:type "article" reaches the node as the page's type, Article or one of its kinds (NewsArticle, BlogPosting).
  for (const e of c.entities) {
    (add(e.name), add(e.attributes), add(e.type));
    if (/Article$|^BlogPosting$|^Report$/.test(e.type)) add('article');
    if (/^Web(Page|Site)$/.test(e.type)) add('website');
  }
  for (const q of c.qa) (add(q.question), add(q.answer));
  return { known, phrases, text: fold(c.chunks.map((ch) => ch.text).join(' ')) };
}

const totals = Object.fromEntries(SYNTAXES.map((syntax) => [syntax, { hit: 0, total: 0, pages: 0 }]));
const perPage = [];
const missedProperties = new Map();
for (const { name, html } of pages()) {
  const url = 'https://bench.example/' + encodeURIComponent(name);
  const stated = await statedValues(html, url);
  if (SYNTAXES.every((syntax) => stated[syntax].length === 0)) continue;
  const item = { type: 'page', id: name, url, html, checksum: 'sha256:' + '0'.repeat(64) };
  const site = { websiteId: 'bench', domain: 'bench.example', brand: 'Bench', defaultLanguage: 'und', plan: 'free', verification: { method: null, state: 'pending' }, aliases: [] };
  const { known, phrases, text } = reached(extractItem(item, site, { receivedAt: '2026-01-01T00:00:00Z' }));
  // A part of a value the node states composed ("Hauptstr. 1, 10115 Berlin, DE"), or a relative url made absolute.
  const inPhrase = (value) => {
    const v = fold(value);
    if (v.length < 2 || v.length > 500) return false;
    const whole = new RegExp(`(^|[^\\p{L}\\p{N}])${v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\p{L}\\p{N}])`, 'u');
    return phrases.some((p) => (v.startsWith('/') ? p.endsWith(v) : whole.test(p)));
  };
  // A body of text (articleBody, 200+ characters) as the chunks hold it: 95 % of its words, as the
  // page's own markup splits and spaces it differently.
  const chunkWords = new Set(words(text));
  const inChunkWords = (value) => {
    if (fold(value).length < 200) return false;
    const stated = words(value);
    return stated.filter((w) => chunkWords.has(w)).length >= 0.95 * stated.length;
  };
  const counts = {};
  const misses = [];
  for (const syntax of SYNTAXES) {
    const values = stated[syntax];
    let pageHit = 0;
    for (const [property, value] of values) {
      const ok = forms(value).some((form) => known.has(form) || inPhrase(form)) || (fold(value).length >= 40 && text.includes(fold(value))) || inChunkWords(value);
      if (ok) pageHit++;
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
const all = SYNTAXES.reduce((sum, syntax) => ({ hit: sum.hit + totals[syntax].hit, total: sum.total + totals[syntax].total }), { hit: 0, total: 0 });
console.log(`structured values that reach the node: ${percent(all)} (${all.hit}/${all.total}) over ${perPage.length} pages`);
for (const syntax of SYNTAXES) console.log(`  ${syntax.padEnd(10)} ${percent(totals[syntax]).padStart(8)} (${totals[syntax].hit}/${totals[syntax].total}) over ${totals[syntax].pages} pages`);
console.log(`  ${'page'.padEnd(48)} ${SYNTAXES.map((s) => s.padStart(10)).join('')}`);
for (const p of perPage) {
  console.log(`  ${p.name.padEnd(48)} ${SYNTAXES.map((s) => (p.counts[s] === '0/0' ? '' : p.counts[s]).padStart(10)).join('')}`);
  if (showMisses) for (const m of p.misses) console.log(`      miss ${m}`);
}
console.log('most missed properties:', [...missedProperties].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([k, v]) => `${k} ${v}`).join(', '));
