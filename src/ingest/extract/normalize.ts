/**
 * Normalisation of the values the extractor emits: text, natural keys, urls, language tags,
 * dates and money. Every function is pure and locale-free so the same input gives the same
 * output on every machine (docs/extraction.md "Formats").
 */

const WHITESPACE = /\s+/g;
/** Whitespace other than a single space: only then is there a run to collapse. */
const COLLAPSIBLE = /[^\S ]| {2}/;

/**
 * Collapses runs of whitespace (including newlines and no-break spaces) to one space and trims.
 * Most text has single spaces only: testing first spares building a copy of it (a third of the time).
 */
export function cleanText(value: string): string {
  return (COLLAPSIBLE.test(value) ? value.replace(WHITESPACE, ' ') : value).trim();
}

/** A surrogate that is not half of a pair: ids hash UTF-8, where it reads as U+FFFD anyway. */
const LONE_SURROGATE = /\p{Cs}/gu;

/**
 * Natural key of a named thing (person, brand, tag, place): Unicode NFKC, lowercase, whitespace
 * collapsed. "Jane  Doe" and "jane doe" are the same author on every post.
 */
export function nameKey(name: string): string {
  return cleanText(name.normalize('NFKC').toLowerCase().replace(LONE_SURROGATE, '\uFFFD'));
}

const TRACKING_PARAMS = /^(utm_[a-z]+|fbclid|gclid|mc_cid|mc_eid)$/i;

/**
 * Natural key of a url: lowercase scheme and host, default port, fragment and tracking
 * parameters dropped, remaining query parameters sorted, trailing slash dropped (except "/").
 * Returns null for anything that is not an absolute http(s) url.
 */
export function urlKey(value: string, base?: string): string | null {
  let url: URL;
  try {
    url = base === undefined ? new URL(value.trim()) : new URL(value.trim(), base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  url.hash = '';
  if (url.search !== '') {
    const params = [...url.searchParams.entries()].filter(([key]) => !TRACKING_PARAMS.test(key));
    params.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
    url.search = new URLSearchParams(params).toString();
  }
  if (url.pathname.length > 1 && url.pathname.endsWith('/')) url.pathname = url.pathname.replace(/\/+$/, '') || '/';
  return url.toString();
}

/** An absolute http(s) url resolved against base, or null. Keeps the url as written otherwise. */
export function absoluteUrl(value: string, base: string): string | null {
  try {
    const url = new URL(value.trim(), base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.toString() : null;
  } catch {
    return null;
  }
}

const LANGUAGE_TAG = /^([A-Za-z]{2,3})(?:[-_]([A-Za-z]{4}))?(?:[-_]([A-Za-z]{2}|[0-9]{3}))?(?:[-_.@].*)?$/;

/**
 * A BCP-47 tag in its conventional case: primary subtag lowercase, script title case, region
 * uppercase ("en-us" -> "en-US", "zh_hant_tw" -> "zh-Hant-TW", a POSIX locale "en_US.UTF-8" ->
 * "en-US"). Variants are dropped. Null when the value is not a language tag.
 */
export function normalizeLanguage(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const match = LANGUAGE_TAG.exec(value.trim());
  if (match === null) return null;
  const [, primary, script, region] = match;
  let tag = primary!.toLowerCase();
  if (script !== undefined) tag += '-' + script[0]!.toUpperCase() + script.slice(1).toLowerCase();
  if (region !== undefined) tag += '-' + region.toUpperCase();
  return tag;
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const SLASHED_DATE = /^(\d{4})\/(\d{1,2})\/(\d{1,2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * A date as the node files carry it: RFC 3339 UTC ("2024-06-25T10:00:00Z", milliseconds kept
 * only when not zero) when a time is known, "YYYY-MM-DD" for a date without a time. A time
 * without an offset is read as UTC. Other shapes fall back to Date.parse (e.g. RFC 2822
 * "Tue, 25 Jun 2024 10:00:00 GMT"). Null when nothing parses, when a part is out of range
 * ("2024-02-30", "25:00", an offset of +24:00) or when the UTC year is not 0000 to 9999.
 */
export function normalizeDate(value: unknown): string | null {
  return normalizeDateTime(value)?.value ?? null;
}

/** A date's node value (normalizeDate) and, for a time stated with an offset other than UTC, its display. */
export interface DateValue {
  value: string;
  /** The source's wall time with its offset, RFC 3339 ("2017-04-26T20:00:00-07:00"); the value is the same instant in UTC. */
  display?: string;
}

/** The numeric offset after the time of a date Date.parse reads ("Wed, 26 Apr 2017 20:00:00 -0700", "... GMT+0200 (CEST)"). */
const TRAILING_OFFSET = /\d:\d\d.*?(?:\s|GMT|UTC|\d)([+-])(\d{2}):?(\d{2})(?:\s*\([^)]*\))?$/i;

/**
 * normalizeDate, keeping the local time: a time with an offset other than UTC gets a display of
 * its wall time and offset (docs/contract.md#fact-rules), so "20:00 -07:00" reads 20:00 where
 * the value, in UTC, is 03:00 the next day.
 */
export function normalizeDateTime(value: unknown): DateValue | null {
  if (typeof value !== 'string') return null;
  // A year-first date with slashes ("2019/05/12", as scholarly citation tags write it) is that ISO date.
  const text = value
    .trim()
    .replace(SLASHED_DATE, (_, y: string, m: string, d: string) => `${y}-${m.padStart(2, '0')}-${d.padStart(2, '0')}`);
  if (text === '') return null;
  const dateOnly = DATE_ONLY.exec(text);
  if (dateOnly !== null)
    return utcMillis(Number(dateOnly[1]), Number(dateOnly[2]), Number(dateOnly[3])) === null ? null : { value: text };
  const match = DATE_TIME.exec(text);
  let ms: number | null;
  /** The offset east of UTC in minutes; 0 when none is stated (a time without one is read as UTC). */
  let offset = 0;
  if (match !== null) {
    const [, y, mo, d, h, mi, s, frac, zone] = match;
    const millis = frac === undefined ? 0 : Number((frac + '00').slice(0, 3));
    ms = utcMillis(Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(s ?? '0'), millis);
    if (ms !== null && zone !== undefined && zone.toUpperCase() !== 'Z') {
      const digits = zone.slice(1).replace(':', '');
      const hours = Number(digits.slice(0, 2));
      const minutes = Number(digits.slice(2, 4));
      offset = (zone[0] === '-' ? -1 : 1) * (hours * 60 + minutes);
      ms = hours > 23 || minutes > 59 ? null : ms - offset * 60_000;
    }
  } else {
    if (!/[a-z]{3}/i.test(text) || !/\d{4}/.test(text)) return null;
    ms = Date.parse(text);
    const zone = TRAILING_OFFSET.exec(text);
    if (zone !== null && Number(zone[2]) <= 23 && Number(zone[3]) <= 59)
      offset = (zone[1] === '-' ? -1 : 1) * (Number(zone[2]) * 60 + Number(zone[3]));
  }
  if (ms === null || !Number.isFinite(ms)) return null;
  const utc = rfc3339(ms);
  if (utc === null) return null;
  if (offset === 0) return { value: utc };
  const wall = rfc3339(ms + offset * 60_000);
  return wall === null ? { value: utc } : { value: utc, display: wall.slice(0, -1) + offsetText(offset) };
}

/** RFC 3339 UTC of an instant, milliseconds only when not zero; null outside the years 0000 to 9999. */
function rfc3339(ms: number): string | null {
  const iso = new Date(ms).toISOString();
  // Years outside 0000..9999 serialise as "+010000-..." or "-000001-...", which RFC 3339 has no form for.
  if (iso.length !== 24) return null;
  return iso.endsWith('.000Z') ? iso.slice(0, -5) + 'Z' : iso;
}

/** "+02:00", "-07:00", "+05:45" for an offset in minutes. */
function offsetText(minutes: number): string {
  const abs = Math.abs(minutes);
  return `${minutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Milliseconds of a proleptic Gregorian UTC time, or null when a part is out of range. */
function utcMillis(
  year: number,
  month: number,
  day: number,
  hour = 0,
  minute = 0,
  second = 0,
  millis = 0,
): number | null {
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  if (day > (month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1]!)) return null;
  // setUTCFullYear, not Date.UTC: Date.UTC reads the years 0 to 99 as 1900 to 1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millis);
  return date.getTime();
}

/** A monetary amount from a number or a string such as "1,299.00" or "12,50"; null if none. */
export function parseAmount(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string') return null;
  let text = value.replace(/[^\d.,-]/g, '');
  if (text === '' || !/\d/.test(text)) return null;
  const lastComma = text.lastIndexOf(',');
  const lastDot = text.lastIndexOf('.');
  if (lastComma > lastDot) {
    // "12,50" or "1.299,00": the comma is the decimal mark when two digits or fewer follow it.
    const decimals = text.length - lastComma - 1;
    text = decimals <= 2 ? text.replace(/\./g, '').replace(',', '.') : text.replace(/,/g, '');
  } else {
    text = text.replace(/,/g, '');
  }
  const amount = Number(text);
  return Number.isFinite(amount) ? amount : null;
}

/**
 * The display string of a price: the amount with at least two decimals, a space and the ISO 4217
 * code ("12.50 EUR"); without a currency, the amount alone. Locale-free on purpose.
 */
export function formatMoney(amount: number, currency: string | undefined): string {
  const fixed = Number.isInteger(amount * 100) ? amount.toFixed(2) : String(amount);
  return currency === undefined ? fixed : `${fixed} ${currency}`;
}

/** An ISO 4217 code in upper case, or undefined. */
export function normalizeCurrency(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const code = value.trim().toUpperCase();
  return /^[A-Z]{3}$/.test(code) ? code : undefined;
}

/** The last path segment of a schema.org type or enumeration url ("https://schema.org/InStock" -> "InStock"). */
export function schemaTerm(value: string): string {
  const text = value.trim();
  const slash = Math.max(text.lastIndexOf('/'), text.lastIndexOf('#'));
  return slash >= 0 ? text.slice(slash + 1) : text;
}

const ENTITY_REFS = /&(quot|amp|apos|lt|gt|#x[0-9a-f]+|#\d+);/gi;
const NAMED: Record<string, string> = { quot: '"', amp: '&', apos: "'", lt: '<', gt: '>' };

/**
 * Undoes one more level of HTML escaping, which many sites apply twice to meta content. A
 * numeric reference to no character (0, a surrogate, beyond U+10FFFF) reads as U+FFFD, as an
 * HTML parser reads it.
 */
export function unescapeHtml(value: string): string {
  if (!value.includes('&')) return value;
  return value.replace(ENTITY_REFS, (_whole, ref: string) => {
    const named = NAMED[ref.toLowerCase()];
    if (named !== undefined) return named;
    const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    return String.fromCodePoint(isUnicodeScalar(code) ? code : REPLACEMENT_CHARACTER);
  });
}

const REPLACEMENT_CHARACTER = 0xfffd;

function isUnicodeScalar(code: number): boolean {
  return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff);
}
