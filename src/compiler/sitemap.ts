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

export function escapeXml(text: string): string {
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
