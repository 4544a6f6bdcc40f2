// The measure of bench/structured-coverage.mjs, shared with test/ingest/extract/independent-parsers.test.ts:
// the values other projects' parsers read from a page's structured data (the jsonld library for
// JSON-LD, microdata-rdf-streaming-parser for Microdata, rdfa-streaming-parser for RDFa), and
// whether each reaches a contribution of our extractor. See the bench's header for the rules.
import { parseDocument } from 'htmlparser2';
import jsonld from 'jsonld';
import { MicrodataRdfParser } from 'microdata-rdf-streaming-parser';
import { RdfaParser } from 'rdfa-streaming-parser';

/** Properties about the page's machinery, not about the things it describes. */
const PLUMBING = new Set([
  'potentialAction',
  'breadcrumb',
  'mainEntityOfPage',
  'isPartOf',
  'speakable',
  'primaryImageOfPage',
  'target',
  'query-input',
  'encodingFormat',
  'width',
  'height',
  'caption',
  'contentUrl',
  'thumbnailUrl',
  'position',
  'inLanguage',
  'isAccessibleForFree',
  'cssSelector',
  'xpath',
]);

const documentLoader = async (url) => {
  if (/^https?:\/\/schema\.org\/?/.test(url))
    return { contextUrl: undefined, documentUrl: url, document: { '@context': { '@vocab': 'https://schema.org/' } } };
  throw new Error(`offline: ${url}`);
};

function ldBlocks(html) {
  const blocks = [];
  const visit = (node) => {
    if (node.type === 'script' && /ld\+json/i.test(node.attribs?.type ?? ''))
      blocks.push(node.children.map((c) => c.data ?? '').join(''));
    for (const child of node.children ?? []) visit(child);
  };
  visit(parseDocument(html));
  return blocks;
}

/** Every literal the reference JSON-LD processor expands, as [property, value]. */
export async function jsonLdValues(html) {
  const values = [];
  for (const block of ldBlocks(html)) {
    let doc;
    try {
      // CDATA wrappers and HTML comments around the JSON, as the corpus's serialized pages have them.
      doc = JSON.parse(
        block
          .trim()
          .replace(/^<!\[CDATA\[|\]\]>$/g, '')
          .replace(/^<!--|-->$/g, '')
          .trim(),
      );
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
        if (!PLUMBING.has(property) && String(node['@value']).trim() !== '')
          values.push([property, String(node['@value'])]);
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
const RDF_PLUMBING = new RegExp(
  [
    '^http://www\\.w3\\.org/(ns/rdfa#|1999/xhtml/vocab#)',
    '^http://ogp\\.me/ns/fb#',
    '^http://www\\.facebook\\.com/2008/fbml',
    '^(fb|al):',
    '^twitter:(card|account_id)$',
    '^https://api\\.w\\.org/',
    '[:#](image|video|audio)(:secure_url)?:(width|height|type)$',
  ].join('|'),
);

/** Every value (literal or IRI; not a type, not a blank node) an RDF parser reads from the page, as [property, value]. */
export function rdfValues(Parser, html, url) {
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

export const SYNTAXES = ['JSON-LD', 'Microdata', 'RDFa'];
/** The values each syntax states, as [property, value] (a schema.org property by its name, another by its IRI). */
export async function statedValues(html, url) {
  return {
    'JSON-LD': await jsonLdValues(html),
    Microdata: await rdfValues(MicrodataRdfParser, html, url),
    RDFa: await rdfValues(RdfaParser, html, url),
  };
}

const words = (text) =>
  String(text)
    .toLowerCase()
    .replace(/<[^>]*>/g, ' ')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
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
  // A mailto: or tel: link's address.
  const address = /^(?:mailto|tel):([^?#]+)/.exec(text);
  if (address !== null) out.push(address[1]);
  // A byline's label ("By Jane Roe") is not part of the name.
  if (/^by\s/.test(text)) out.push(text.slice(3).trim());
  const term = /^https?:\/\/schema\.org\/([A-Za-z]+)$/.exec(String(value).trim());
  if (term !== null) out.push(term[1].toLowerCase());
  const number = Number(text.replace(/,/g, ''));
  if (text !== '' && Number.isFinite(number)) out.push(`#${number}`);
  const instant = Date.parse(text);
  if (/^\d{4}-\d{2}-\d{2}/.test(text) && !Number.isNaN(instant)) out.push(`@${instant}`, `d${text.slice(0, 10)}`);
  // Another date form with a month name and a year ("Sat, 12 Sep 2026 19:00:00 -0700") by its instant.
  else if (/[a-z]{3}/.test(text) && /\b\d{4}\b/.test(text) && !Number.isNaN(instant)) out.push(`@${instant}`);
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
    for (const v of [
      f.display,
      ...(typeof f.value === 'object' && f.value !== null ? Object.values(f.value).flat() : [f.value]),
    ])
      if (typeof v === 'string') phrases.push(fold(v));
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

/**
 * A test of whether a stated value reaches contribution `c`: equal to what a fact, entity or Q&A
 * says (in the forms above), a whole-word part of a fact's text (a part the node composes: an
 * address's street; a relative url made absolute), a chunk's text (40+ characters), or a body of
 * text (200+ characters) 95 % of whose words the chunks hold, as the page's markup spaces it.
 */
export function reachesContribution(c) {
  const { known, phrases, text } = reached(c);
  const inPhrase = (value) => {
    const v = fold(value);
    if (v.length < 2 || v.length > 500) return false;
    const whole = new RegExp(`(^|[^\\p{L}\\p{N}])${v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\p{L}\\p{N}])`, 'u');
    return phrases.some((p) => (v.startsWith('/') ? p.endsWith(v) : whole.test(p)));
  };
  const chunkWords = new Set(words(text));
  const inChunkWords = (value) => {
    if (fold(value).length < 200) return false;
    const stated = words(value);
    return stated.filter((w) => chunkWords.has(w)).length >= 0.95 * stated.length;
  };
  return (value) =>
    forms(value).some((form) => known.has(form) || inPhrase(form)) ||
    (fold(value).length >= 40 && text.includes(fold(value))) ||
    inChunkWords(value);
}
