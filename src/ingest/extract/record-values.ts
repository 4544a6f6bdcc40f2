import { domainToASCII } from 'node:url';
import { DateOrTimestampSchema, HttpUrlSchema } from '../../output/node-format/index.js';
import type { WebsiteInfo } from '../../control/records/website-info.js';

/**
 * The shapes node records accept (src/output/node-format/records.ts), applied where the extractor makes
 * a value: a label becomes a snake_case predicate, a JSON-LD @type a schema.org type name, a url
 * one the node's url pattern accepts. What cannot take that shape is dropped, never passed on
 * for the compiler to reject (docs/extraction.md "What a record accepts").
 */

/** FactRecord.predicate and RelationshipRecord.type; a test keeps it equal to the schemas. */
const SNAKE_CASE = /^[a-z][a-z0-9_]*$/;

export function isSnakeCase(value: unknown): value is string {
  return typeof value === 'string' && SNAKE_CASE.test(value);
}

/** Latin letters that Unicode does not decompose into an ASCII letter and a mark. */
const LATIN_LETTERS: Readonly<Record<string, string>> = {
  ß: 'ss',
  ẞ: 'SS',
  æ: 'ae',
  Æ: 'AE',
  œ: 'oe',
  Œ: 'OE',
  ø: 'o',
  Ø: 'O',
  đ: 'd',
  Đ: 'D',
  ð: 'd',
  Ð: 'D',
  þ: 'th',
  Þ: 'TH',
  ł: 'l',
  Ł: 'L',
  ı: 'i',
  ħ: 'h',
  Ħ: 'H',
  ŋ: 'ng',
  Ŋ: 'NG',
  ĸ: 'k',
};
const LATIN_LETTER = new RegExp(`[${Object.keys(LATIN_LETTERS).join('')}]`, 'g');
const MARKS = /\p{M}/gu;
/** A letter that is not an ASCII letter (after the steps above: a non-Latin script). */
const OTHER_LETTER = /[^\P{L}A-Za-z]/u;
const PREDICATE_PREFIX = 'field_';
/** Most labels: nothing to decompose or transliterate. */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * The snake_case predicate of a label ("Opening Hours" -> opening_hours, "Größe" -> grosse,
 * "3D print" -> field_3d_print), or null when the label has none: no letter at all ("4.1.6",
 * "§ 12", "") or a letter with no ASCII form ("価格"; a partial form such as "usd" for
 * "Цена (USD)" would misname the value). Letters lose their diacritics, camelCase splits
 * ("wordCount" -> word_count), every other run of characters becomes one underscore, and a
 * leading digit gets the field_ prefix.
 */
export function toPredicate(label: string): string | null {
  let ascii = label;
  if (!PRINTABLE_ASCII.test(label)) {
    ascii = label
      .normalize('NFKD')
      .replace(MARKS, '')
      .replace(LATIN_LETTER, (c) => LATIN_LETTERS[c]!);
    if (OTHER_LETTER.test(ascii)) return null;
  }
  const snake = ascii
    .replace(/([a-z])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (!/[a-z]/.test(snake)) return null;
  return /^[0-9]/.test(snake) ? PREDICATE_PREFIX + snake : snake;
}

/** A schema.org type name: a letter, then letters and digits (schema.org names no other kind). */
const TYPE_TERM = /^[A-Za-z][A-Za-z0-9]{0,99}$/;
const TYPE_NAME = /^[A-Z][A-Za-z0-9]{0,99}$/;

export function isTypeName(value: unknown): value is string {
  return typeof value === 'string' && TYPE_NAME.test(value);
}

/**
 * The schema.org type a JSON-LD or microdata @type names: the term after the last "/", "#" or
 * ":" ("https://schema.org/Product", "schema:Product"), first letter upper-cased ("product"), or
 * null when that is not a type name ("", "http://schema.org/", "Product?x", "価格").
 */
export function toTypeName(value: string): string | null {
  const text = value.trim();
  const term = text.slice(Math.max(text.lastIndexOf('/'), text.lastIndexOf('#'), text.lastIndexOf(':')) + 1);
  return TYPE_TERM.test(term) ? term[0]!.toUpperCase() + term.slice(1) : null;
}

/** C0 controls and DEL: the node's url policy refuses them even where the url pattern does not. */
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * An absolute http(s) url as node records accept it: as written when the node's url pattern
 * accepts it, it has no control character and it parses, else the WHATWG serialisation
 * ("HTTP://A.example/a b" -> "http://a.example/a%20b"), else null (not http(s), unparseable, or
 * over 4,096 characters once encoded).
 */
export function toHttpUrl(value: string): string | null {
  const url = parseHttpUrl(value);
  if (url === null) return null;
  if (!CONTROL.test(value) && HttpUrlSchema.safeParse(value).success) return value;
  const serialised = url.toString();
  return HttpUrlSchema.safeParse(serialised).success ? serialised : null;
}

function parseHttpUrl(value: string): URL | null {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

const hostsOfSite = new WeakMap<Pick<WebsiteInfo, 'domain' | 'aliases'>, ReadonlySet<string>>();

/**
 * The hosts a node file may name in a url: the website's domain and its aliases, in ASCII,
 * lowercased. Kept per site object: every item of a batch asks, and domainToASCII was about 1 %
 * of the extraction worker's time.
 */
export function websiteHosts(site: Pick<WebsiteInfo, 'domain' | 'aliases'>): ReadonlySet<string> {
  let hosts = hostsOfSite.get(site);
  if (hosts === undefined) {
    const names = [site.domain, ...site.aliases].map((host) => host.toLowerCase().replace(/\.$/, ''));
    hosts = new Set(names.flatMap((host) => [host, domainToASCII(host)]).filter((host) => host !== ''));
    hostsOfSite.set(site, hosts);
  }
  return hosts;
}

/** toHttpUrl of a url on one of `hosts` (a page's canonical url, as the node's url policy allows it), else null. */
export function toWebsiteUrl(value: string, hosts: ReadonlySet<string>): string | null {
  const url = toHttpUrl(value);
  if (url === null) return null;
  return hosts.has(new URL(url).hostname.replace(/\.$/, '')) ? url : null;
}

/** A "YYYY-MM-DD" date or an RFC 3339 UTC timestamp, as valid_from / valid_until accept. */
export function isDateOrTimestamp(value: unknown): value is string {
  return DateOrTimestampSchema.safeParse(value).success;
}

/** An own property of a constant table: a key such as "constructor" names nothing. */
export function lookup<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
