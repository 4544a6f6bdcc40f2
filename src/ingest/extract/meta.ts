import type { MetaTag } from './html-document.js';
import { cleanText, unescapeHtml } from './normalize.js';
import { lookup } from './record-values.js';
import { SOURCE_CONFIDENCE as C } from './predicates.js';
import { cleanByline } from './byline.js';
import { personNames } from './person-names.js';
import { cleanSiteName } from './site-name.js';

/**
 * Head metadata (OpenGraph, Twitter cards, Dublin Core, article:*, Parse.ly, plain meta names)
 * read the way Mozilla Readability reads it: a property attribute may list several
 * space-separated properties, a name is lowercased with dots read as colons, and a later tag
 * overrides an earlier one with the same key.
 */
/**
 * The key a Twitter card's "Written by" label pair is read under (twitter:label1 "Written by",
 * twitter:data1 "Jane Roe", as Yoast writes it): an author candidate like the others.
 */
export const WRITTEN_BY_KEY = 'twitter:written_by';
export const WRITTEN_BY_LABEL = /^written by$/i;
/** The key of a `<meta itemprop>` that belongs to no microdata item (html-document.ts reads it as a meta name). */
const ITEMPROP_KEY = (property: string): string => `itemprop:${property.toLowerCase()}`;

export function readMetaValues(metas: MetaTag[], prefixes: readonly string[] = []): MetaValues {
  const values = new MetaValues();
  const declared = declaredPrefixes(prefixes);
  for (const meta of metas) {
    const content = cleanText(unescapeHtml(meta.content));
    if (content === '') continue;
    let matched = false;
    if (meta.property !== null) {
      for (const token of meta.property.toLowerCase().split(/\s+/)) {
        if (token === '' || !token.includes(':')) continue;
        values.add(canonicalKey(token, declared), content);
        matched = true;
      }
    }
    if (!matched && meta.name !== null) {
      const key = meta.name.toLowerCase().replace(/\s/g, '').replace(/\./g, ':');
      if (key !== '') values.add(canonicalKey(key, declared), content);
    }
  }
  for (const { label, data } of twitterLabels(values))
    if (WRITTEN_BY_LABEL.test(label)) values.add(WRITTEN_BY_KEY, data);
  addParselyPage(values);
  return values;
}

/** Fields of Parse.ly's older JSON meta (parsely-page), read as the parsely-* tags that replaced it. */
const PARSELY_PAGE_FIELDS: Record<string, string> = {
  title: 'parsely-title',
  author: 'parsely-author',
  pub_date: 'parsely-pub-date',
  link: 'parsely-link',
  image_url: 'parsely-image-url',
  section: 'parsely-section',
};

/** <meta name="parsely-page" content='{"title": ..., "author": ..., "tags": [...]}'>: its fields as parsely-* values, where the page does not state those tags. */
function addParselyPage(values: MetaValues): void {
  const json = values.get('parsely-page');
  if (json === undefined) return;
  let page: unknown;
  try {
    page = JSON.parse(json);
  } catch {
    return;
  }
  if (typeof page !== 'object' || page === null || Array.isArray(page)) return;
  const fields = page as Record<string, unknown>;
  for (const [field, key] of Object.entries(PARSELY_PAGE_FIELDS)) {
    const value = fields[field];
    if (typeof value === 'string' && cleanText(value) !== '' && values.get(key) === undefined)
      values.add(key, cleanText(value));
  }
  const tags = fields.tags;
  if (Array.isArray(tags) && values.get('parsely-tags') === undefined) {
    const text = tags
      .filter((t): t is string => typeof t === 'string')
      .map(cleanText)
      .filter((t) => t !== '' && !t.includes(','))
      .join(',');
    if (text !== '') values.add('parsely-tags', text);
  }
}

/** A Twitter card's label and data pairs (twitter:label1 with twitter:data1, ... up to 9), in order. */
export function twitterLabels(values: MetaValues): Array<{ label: string; data: string }> {
  const pairs: Array<{ label: string; data: string }> = [];
  for (let i = 1; i <= 9; i++) {
    const label = values.get(`twitter:label${i}`);
    const data = values.get(`twitter:data${i}`);
    if (label !== undefined && data !== undefined) pairs.push({ label, data });
  }
  return pairs;
}

/**
 * Every value of each meta key in document order. get() is the last one (a later tag overrides
 * an earlier one for single-valued keys such as og:title); all() keeps a repeated tag's values
 * (og:image, article:tag, og:locale:alternate).
 */
export class MetaValues {
  private readonly values = new Map<string, string[]>();

  add(key: string, value: string): void {
    const list = this.values.get(key);
    if (list === undefined) this.values.set(key, [value]);
    else list.push(value);
  }

  get(key: string): string | undefined {
    const list = this.values.get(key);
    return list === undefined ? undefined : list[list.length - 1];
  }

  all(key: string): string[] {
    return this.values.get(key) ?? [];
  }

  keys(): IterableIterator<string> {
    return this.values.keys();
  }
}

/** Namespaces whose prefix a page may rename (`<html prefix="shop: http://ogp.me/ns/product#">`), by their usual prefix. */
const NAMESPACES: Record<string, string> = {
  'http://ogp.me/ns#': 'og',
  'https://ogp.me/ns#': 'og',
  'http://opengraphprotocol.org/schema/': 'og',
  'http://ogp.me/ns/article#': 'article',
  'http://ogp.me/ns/product#': 'product',
  'http://ogp.me/ns/profile#': 'profile',
  'http://ogp.me/ns/music#': 'music',
  'http://ogp.me/ns/video#': 'video',
  'http://ogp.me/ns/book#': 'book',
  'http://ogp.me/ns/website#': 'website',
  'http://ogp.me/ns/fb#': 'fb',
  'http://purl.org/dc/elements/1.1/': 'dc',
  'http://purl.org/dc/terms/': 'dcterms',
};

/** Declared prefix (lowercase) -> the usual prefix of its namespace, for the namespaces above. */
function declaredPrefixes(prefixes: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const declaration of prefixes) {
    for (const match of declaration.matchAll(/([\w.-]+)\s*:\s+(\S+)/g)) {
      const usual = lookup(NAMESPACES, match[2]!.replace(/^https:\/\/ogp/, 'http://ogp'));
      if (usual !== undefined) out.set(match[1]!.toLowerCase(), usual);
    }
  }
  return out;
}

/** A key with its declared prefix replaced by the usual one; dc/dcterms spellings (DC.x, DCTERMS.x, dcterm:x) read as dc:x / dcterms:x. */
function canonicalKey(key: string, declared: Map<string, string>): string {
  const colon = key.indexOf(':');
  if (colon <= 0) return key;
  const prefix = key.slice(0, colon);
  const usual = declared.get(prefix) ?? (prefix === 'dcterm' ? 'dcterms' : prefix);
  return usual === prefix ? key : usual + key.slice(colon);
}

export interface MetaCandidate {
  value: string;
  /** An author candidate's people (personNames of each line `value` joins with ", "). */
  names?: string[];
  /** The meta key the value came from, e.g. og:title. */
  key: string;
  confidence: number;
}

type SourceTable = ReadonlyArray<readonly [string, number]>;

/** Author keys a page repeats, one author a tag; other keys keep their last tag. */
const REPEATED_AUTHOR_KEYS = new Set(['article:author', 'citation_author', 'book:author', 'books:author']);

/** Keys per predicate, in Readability's order of preference; the confidence encodes that order. */
export const META_SOURCES = {
  name: [
    ['dc:title', C.metaDublinCore],
    ['dcterms:title', C.metaDublinCore],
    ['og:title', C.metaOpenGraph],
    ['weibo:article:title', C.metaOpenGraph],
    ['weibo:webpage:title', C.metaOpenGraph],
    ['title', C.metaName],
    ['twitter:title', C.metaTwitter],
    ['parsely-title', C.metaParsely],
    ['citation_title', C.metaParsely - 0.01],
  ],
  author: [
    ['dc:creator', C.metaDublinCore],
    ['dcterms:creator', C.metaDublinCore],
    ['author', C.metaName],
    ['parsely-author', C.metaParsely],
    ['article:author', C.metaParsely - 0.02],
    ['sailthru:author', C.metaParsely - 0.02],
    // The New York Times' byline tag ("By Jane Roe and Sam Lee"); OpenGraph's book:author (and the
    // older books:author) when a page writes the author's name there rather than a profile url.
    ['byl', C.metaParsely - 0.02],
    ['book:author', C.metaParsely - 0.02],
    ['books:author', C.metaParsely - 0.02],
    ['citation_author', C.metaParsely - 0.03],
    [WRITTEN_BY_KEY, C.metaTwitter - 0.03],
  ],
  description: [
    ['dc:description', C.metaDublinCore],
    ['dcterms:description', C.metaDublinCore],
    ['dcterms:abstract', C.metaDublinCore - 0.01],
    ['og:description', C.metaOpenGraph],
    ['weibo:article:description', C.metaOpenGraph],
    ['weibo:webpage:description', C.metaOpenGraph],
    ['description', C.metaName],
    ['twitter:description', C.metaTwitter],
    ['citation_abstract', C.metaTwitter - 0.01],
  ],
  site_name: [
    ['og:site_name', C.metaOpenGraph],
    ['application-name', C.metaParsely],
  ],
  date_published: [
    ['article:published_time', C.metaOpenGraph],
    ['og:published_time', C.metaOpenGraph],
    ['parsely-pub-date', C.metaParsely],
    ['dcterms:issued', C.metaParsely - 0.01],
    ['dc:date', C.metaParsely - 0.02],
    ['dcterms:date', C.metaParsely - 0.02],
    ['sailthru:date', C.metaParsely - 0.03],
    ['citation_publication_date', C.metaParsely - 0.03],
    ['citation_online_date', C.metaParsely - 0.04],
    ['citation_date', C.metaParsely - 0.04],
    // Names without a standard, as news and government sites print them.
    ['dc:date:issued', C.metaParsely - 0.05],
    ['pubdate', C.metaParsely - 0.05],
    ['publish-date', C.metaParsely - 0.05],
    ['publish_date', C.metaParsely - 0.05],
    ['publication_date', C.metaParsely - 0.05],
    [ITEMPROP_KEY('datePublished'), C.metaParsely - 0.05],
    ['date', C.metaParsely - 0.06],
  ],
  date_modified: [
    ['article:modified_time', C.metaOpenGraph],
    ['og:updated_time', C.metaName],
    ['dcterms:modified', C.metaParsely - 0.02],
    [ITEMPROP_KEY('dateModified'), C.metaParsely - 0.05],
  ],
  image: [
    ['og:image', C.metaOpenGraph],
    ['twitter:image', C.metaTwitter],
  ],
  keywords: [
    ['keywords', C.metaName],
    ['news_keywords', C.metaParsely],
    ['sailthru:tags', C.metaParsely - 0.01],
  ],
} as const satisfies Record<string, SourceTable>;

export type MetaPredicate = keyof typeof META_SOURCES;

/**
 * The candidates of one predicate, in Readability's order of preference. Authors are cleaned as
 * bylines are ("By Jane Doe" -> "Jane Doe"; a url, as article:author often is, names nobody) and
 * split into their people ("Jane Doe and John Roe": personNames); article:author, an OpenGraph
 * array, names every author of its repeated tags, other keys keep their last tag; a site name
 * loses its tagline.
 */
export function metaCandidates(values: MetaValues, predicate: MetaPredicate): MetaCandidate[] {
  const out: MetaCandidate[] = [];
  for (const [key, confidence] of META_SOURCES[predicate]) {
    if (predicate === 'author') {
      const lines = authorLines(REPEATED_AUTHOR_KEYS.has(key) ? values.all(key) : values.all(key).slice(-1)).map(
        (line) => (key === 'citation_author' ? givenNameFirst(line) : line),
      );
      // Lines that hold a comma themselves ("Roe, Jane", as citation tags write names) join with "; ".
      if (lines.length > 0)
        out.push({
          value: lines.join(lines.length > 1 && lines.some((line) => line.includes(',')) ? '; ' : ', '),
          names: [...new Set(lines.flatMap(personNames))],
          key,
          confidence,
        });
      continue;
    }
    const value = predicate === 'site_name' ? siteNameValue(values.get(key)) : values.get(key);
    if (value === undefined || value === null) continue;
    out.push({ value, key, confidence });
  }
  return out;
}

/** A citation tag's "Last, First" as the person is called ("Lind, Ana" -> "Ana Lind", "Jong, Michiel de" -> "Michiel de Jong"); other lines as they are. */
function givenNameFirst(line: string): string {
  const match = /^([^,\d]+),\s*([^,\d]+)$/.exec(line);
  return match === null ? line : `${match[2]!.trim()} ${match[1]!.trim()}`;
}

function authorLines(all: string[]): string[] {
  return [...new Set(all.map((value) => cleanByline(value, 500)).filter((line): line is string => line !== null))];
}

function siteNameValue(value: string | undefined): string | null {
  return value === undefined ? null : cleanSiteName(value);
}

const WORD_SPLIT = /\s+/;
const TOKENIZE = /\W+/g;

function wordCount(text: string): number {
  return text.split(WORD_SPLIT).length;
}

// Site-name separators in a <title>: | - – — \ / > »
const SEPARATOR_CHARS = '|\\-\u2013\u2014\\\\/>»';
const TITLE_SEPARATOR = new RegExp(` [${SEPARATOR_CHARS}] `);
const TITLE_SEPARATORS = new RegExp(` [${SEPARATOR_CHARS}] `, 'g');
const LEADING_PART = new RegExp(`^[^${SEPARATOR_CHARS}]*[${SEPARATOR_CHARS}]`);
const SEPARATOR_RUNS = new RegExp(`[${SEPARATOR_CHARS}]+`, 'g');
const HIERARCHICAL_SEPARATOR = / [\\/>»] /;

/**
 * The page title from <title> with Readability's heuristics: a trailing (or, when that leaves
 * too little, leading) site name after " | ", " - ", " – ", " » " ... is dropped; "Site: Title"
 * keeps the part after the colon unless a heading repeats the whole title; a title too short or
 * too long is replaced by the only <h1>. A result of four words or fewer falls back to the
 * original. Whitespace is collapsed first, as document.title does, so a separator on its own
 * line still counts.
 */
export function cleanDocumentTitle(rawTitle: string | null, headingTexts: string[], h1Texts: string[]): string | null {
  if (rawTitle === null) return null;
  const origTitle = cleanText(rawTitle);
  let curTitle = origTitle;
  let hadHierarchicalSeparators = false;
  if (TITLE_SEPARATOR.test(curTitle)) {
    hadHierarchicalSeparators = HIERARCHICAL_SEPARATOR.test(curTitle);
    const separators = [...origTitle.matchAll(TITLE_SEPARATORS)];
    curTitle = origTitle.substring(0, separators[separators.length - 1]!.index);
    if (wordCount(curTitle) < 3) curTitle = origTitle.replace(LEADING_PART, '');
  } else if (curTitle.includes(': ')) {
    const match = headingTexts.some((heading) => cleanText(heading) === curTitle);
    if (!match) {
      curTitle = origTitle.substring(origTitle.lastIndexOf(':') + 1);
      if (wordCount(curTitle) < 3) curTitle = origTitle.substring(origTitle.indexOf(':') + 1);
      else if (wordCount(origTitle.substring(0, origTitle.indexOf(':'))) > 5) curTitle = origTitle;
    }
  } else if (curTitle.length > 150 || curTitle.length < 15) {
    if (h1Texts.length === 1) curTitle = h1Texts[0]!;
  }
  curTitle = cleanText(curTitle);
  const count = wordCount(curTitle);
  if (count <= 4 && (!hadHierarchicalSeparators || count !== wordCount(origTitle.replace(SEPARATOR_RUNS, '')) - 1)) {
    curTitle = origTitle;
  }
  const cleaned = cleanText(curTitle);
  return cleaned === '' ? null : cleaned;
}

/** Share of b's tokens that also occur in a (Readability's textSimilarity). */
export function textSimilarity(a: string, b: string): number {
  const tokensA = a.toLowerCase().split(TOKENIZE).filter(Boolean);
  const tokensB = b.toLowerCase().split(TOKENIZE).filter(Boolean);
  if (tokensA.length === 0 || tokensB.length === 0) return 0;
  const setA = new Set(tokensA);
  const uniqueB = tokensB.filter((token) => !setA.has(token));
  return 1 - uniqueB.join(' ').length / tokensB.join(' ').length;
}
