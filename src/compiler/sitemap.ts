import { compareStrings, TopK } from './top-k.js';

/** Namespace of the ai: extension elements in sitemap-ai.xml (schemas/xml/sitemap-ai.xsd). */
export const AI_SITEMAP_NS = 'https://nodectl.dev/ns/sitemap-ai/1.0';
export const SITEMAP_NS = 'http://www.sitemaps.org/schemas/sitemap/0.9';
/** The sitemaps protocol allows 50,000 urls per file; the most important are kept. */
export const SITEMAP_MAX_URLS = 50_000;

export interface SitemapEntry {
  loc: string;
  lastmod: string;
  importance: number;
}

/** Characters XML 1.0 does not allow even as references; in a URL they are percent-encoded, as a URL parser would. */
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;

/** Any character escapeXml changes: most urls and dates have none, and are returned as they are. */
const ESCAPED = /[&<>"'\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/;

export function escapeXml(text: string): string {
  if (!ESCAPED.test(text)) return text;
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    .replace(NOT_XML, (c) => encodeURIComponent(c));
}

/**
 * sitemap-ai.xml: a sitemaps.org urlset whose url elements carry ai:importance (1 to 5) after
 * loc and lastmod. Entries are sorted by loc; callers pass at most SITEMAP_MAX_URLS.
 */
export function renderSitemap(entries: SitemapEntry[]): string {
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<urlset xmlns="${SITEMAP_NS}" xmlns:ai="${AI_SITEMAP_NS}">`,
  ];
  for (const e of entries) {
    lines.push(
      `  <url><loc>${escapeXml(e.loc)}</loc><lastmod>${escapeXml(e.lastmod)}</lastmod><ai:importance>${e.importance}</ai:importance></url>`,
    );
  }
  lines.push('</urlset>', '');
  return lines.join('\n');
}

/** A source as the sitemap reads it: its url, when it was last seen, its importance. */
export interface SitemapSource {
  url: string;
  lastSeenAt: string;
  importance: number;
}

/** Best first: higher importance, then url; of one url's entries, the latest seen. */
function sitemapOrder(a: SitemapEntry, b: SitemapEntry): number {
  return b.importance - a.importance || compareStrings(a.loc, b.loc) || compareStrings(b.lastmod, a.lastmod);
}

function toEntry(source: SitemapSource): SitemapEntry | undefined {
  if (!/^https?:\/\//.test(source.url) || source.url.length < 12) return undefined;
  return {
    loc: source.url,
    lastmod: source.lastSeenAt,
    importance: Math.min(5, Math.max(1, Math.round(source.importance))),
  };
}

/**
 * The sitemap's entries, sorted by loc: one per http(s) url (its most important source, then the
 * latest seen), at most `max` of them, the most important kept (ties by url). `sources` is read
 * once per pass and never held whole: a pass keeps the best k entries in a TopK, and a url's
 * best entry ranks ahead of its others, so the urls among the first k entries, each at its first
 * entry, are the best urls in order; when duplicates leave fewer than `max` of them, a pass with
 * a larger k follows.
 */
export function selectSitemapEntries(
  sources: () => Iterable<SitemapSource>,
  max: number = SITEMAP_MAX_URLS,
): SitemapEntry[] {
  for (let k = max; ;) {
    const top = new TopK<SitemapEntry>(k, sitemapOrder);
    let seen = 0;
    for (const source of sources()) {
      const entry = toEntry(source);
      if (entry === undefined) continue;
      seen++;
      top.push(entry);
    }
    const best: SitemapEntry[] = [];
    const locs = new Set<string>();
    for (const entry of top.result()) {
      if (locs.has(entry.loc)) continue; // a worse entry of a url already kept
      locs.add(entry.loc);
      best.push(entry);
    }
    if (best.length >= max || seen <= k) return best.slice(0, max).sort((a, b) => compareStrings(a.loc, b.loc));
    k += max - best.length;
  }
}
