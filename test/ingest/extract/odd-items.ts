import { createHash } from 'node:crypto';
import { SOURCE_TYPES, type FieldMapping, type IngestItem } from '../../../src/platform/contract/ingest-item.js';

/**
 * A seeded generator of odd but acceptable IngestItems (valid at ingest, hostile inside):
 * numeric, symbol, empty and non-Latin labels, huge tables, RTL and zero-width text, broken
 * entities, JSON-LD of the wrong shape, bad dates, urls and languages, deep nesting. The same
 * seed gives the same item on every machine (mulberry32).
 */
export type Rng = () => number;

export function mulberry32(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(r: Rng, values: readonly T[]): T => values[Math.floor(r() * values.length)]!;
const chance = (r: Rng, p: number): boolean => r() < p;
const int = (r: Rng, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
const times = <T>(n: number, make: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => make(i));

export const LABELS = [
  '4.1.6',
  '§ 12',
  '',
  ' ',
  '価格',
  'Цена (USD)',
  'Größe',
  'Œuvre',
  'constructor',
  '__proto__',
  'toString',
  'hasOwnProperty',
  '3D print',
  '100%',
  '—',
  '###',
  'Opening Hours',
  'colour:',
  'ﬁle size',
  'ＡＢＣ',
  '①',
  'e\u0301te\u0301',
  'السعر',
  'מחיר',
  'a'.repeat(61),
  'x_'.repeat(25),
  'Price\u200b',
  '\u202eRTL\u202c label',
  '😀 emoji',
  'Naïve café',
  'İstanbul',
  'ǅungla',
  'ß',
  'Weight:',
  'SKU',
  'eMail',
  '\u0000nul',
  'Ⅻ',
];
const TEXTS = [
  'Plain words that make a sentence long enough to count as a paragraph of text.',
  'مرحبا بالعالم، هذا نص عربي طويل بما يكفي ليكون فقرة.',
  'שלום עולם, זה טקסט בעברית ארוך מספיק.',
  'zero\u200bwidth\u200c\u200djoiners\ufeff and\u2060 word joiners here in a line of text',
  '\u202eoverride\u202c \u2066isolate\u2069 bidi controls',
  'combining a\u0301\u0302\u0303 marks',
  'emoji 👩‍👩‍👧 family and flags 🇺🇳',
  'lone \ud800 surrogate',
  'nul \u0000 and bell \u0007 controls',
  'line\u2028separator\u2029paragraph',
  '<b>markup</b> inside & text',
  'Is this a question?',
  'x',
  ' ',
  '',
  'A, B, C, D, E, F, G, many commas, to score, as a paragraph, indeed.',
  '😀'.repeat(40),
  'Ⅻ ① ﬁ ＡＢＣ',
];
const ENTITIES = [
  '&amp',
  '&#xD800;',
  '&#0;',
  '&#99999999999;',
  '&nbsp',
  '&foo;',
  '&#x;',
  '&#;',
  '&',
  '&amp;amp;',
  '&#x110000;',
  '&lt;script&gt;',
  '&#65;&#x42;',
];
export const URLS = [
  'javascript:alert(1)',
  'mailto:a@b.example',
  '//cdn.example/x.png',
  '/relative/path',
  '../up',
  'http://',
  'https://',
  'http://[::1',
  'https:// space.example/x',
  'HTTP://SHOP.EXAMPLE/Upper',
  'https://shop.example/a b',
  'https://shop.example/価格',
  'https://other.example/x',
  'data:image/png;base64,xx',
  '',
  ' ',
  'https://shop.example/' + 'x'.repeat(5000),
  'https:\\\\shop.example\\x',
  'ftp://x.example/',
  'https://shop.example/?q=a b#frag',
  'http://user:pass@shop.example/',
  'https://shop.example/img/1.png',
];
export const DATES = [
  '2024-13-45',
  '2024-02-30',
  '2024-02-29',
  '9999-12-31T23:59:59-05:00',
  '0000-01-01',
  '0000-01-01T00:00:00Z',
  '0099-06-01T12:00:00+01:00',
  'yesterday',
  '2024-02-30T25:61:00Z',
  '2024-06-25T10:00:00+99:99',
  'Tue, 25 Jun 275760 10:00:00 GMT',
  'Jan 1 10000',
  '',
  '2024',
  '2024-06-25T10:00:00.123456789Z',
  '2024-06-25 10:00',
  '20240625',
  '2024-06-25T10:00:00Z',
  'Tue, 25 Jun 2024 10:00:00 GMT',
  '-000001-01-01T00:00:00Z',
];
const HTML_LANGS = [
  '',
  'english',
  'en_US.UTF-8',
  'zz-ZZZZ-99',
  'x-klingon',
  '123',
  'EN-us',
  'zh_hant_tw',
  'sr-Latn-RS',
  'i-default',
  'de-CH-1996',
  'ar',
  'he-IL',
  'und',
  '  fr  ',
];
const ITEM_LANGUAGES = ['en', 'EN', 'en-gb', 'zh-Hant-TW', 'sr-Latn', 'de-CH-1996', 'ar', 'he', 'und', 'es-419'];
const TYPES = [
  'Product',
  'product',
  'http://schema.org/Product',
  'https://schema.org/',
  'schema:Event',
  'Product?x',
  '価格',
  '',
  ' ',
  'Thing123',
  'og:article',
  'NewsArticle',
  'FAQPage',
  'Question',
  'Person',
  'Organization',
  'LocalBusiness',
  'A'.repeat(300),
  'WebSite',
  'Offer',
  'constructor',
];
const PROPERTIES = [
  'name',
  'headline',
  'description',
  'url',
  'image',
  'logo',
  'author',
  'publisher',
  'brand',
  'offers',
  'aggregateRating',
  'datePublished',
  'dateModified',
  'startDate',
  'endDate',
  'location',
  'address',
  'geo',
  'openingHours',
  'openingHoursSpecification',
  'keywords',
  'articleSection',
  'category',
  'sku',
  'gtin13',
  'telephone',
  'eventStatus',
  'wordCount',
  'mainEntity',
  'acceptedAnswer',
  '@id',
  'mainEntityOfPage',
  'sameAs',
  'constructor',
  'toString',
  '__proto__',
  '4.1.6',
  '価格',
  'priceCurrency',
  'price',
  'ratingValue',
  'latitude',
  'dayOfWeek',
  'opens',
  'itemReviewed',
  'seller',
  '@graph',
  'review',
  'reviews',
  'hasPart',
  'itemListElement',
  'identifier',
  'interactionStatistic',
  'subEvent',
  'workPerformed',
  'track',
  'isbn',
  'mpn',
  'position',
  'item',
];

/** Sets a key even when it is "__proto__" (an own property, as JSON.parse makes it). */
function put(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function text(r: Rng): string {
  let out = pick(r, TEXTS);
  if (chance(r, 0.3)) out += ' ' + pick(r, ENTITIES) + ' ' + pick(r, TEXTS);
  if (chance(r, 0.05)) out = out.repeat(int(r, 50, 400));
  return out;
}

function deepArray(depth: number, leaf: unknown): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i += 1) value = [value];
  return value;
}

/** A value of the wrong shape as often as of the right one. */
function oddValue(r: Rng, depth: number): unknown {
  switch (int(r, 0, 11)) {
    case 0:
      return null;
    case 1:
      return chance(r, 0.5);
    case 2:
      return pick(r, [0, -0, 12, 1e308, -1, 3.5, Number.MAX_SAFE_INTEGER]);
    case 3:
      return pick(r, URLS);
    case 4:
      return pick(r, DATES);
    case 5:
      return chance(r, 0.1) ? 'x'.repeat(int(r, 10_000, 200_000)) : text(r);
    case 6:
      return deepArray(int(r, 1, 30), chance(r, 0.5) ? text(r) : null);
    case 7:
      return { '@value': chance(r, 0.5) ? text(r) : [text(r)] };
    case 8:
      return depth < 3 ? ldNode(r, depth + 1) : text(r);
    case 9:
      return times(int(r, 0, 4), () => oddValue(r, depth + 1));
    case 10:
      return { '@id': pick(r, ['#a', '#b', '#org', pick(r, URLS)]) };
    default:
      return pick(r, LABELS);
  }
}

function propertyValue(r: Rng, key: string, depth: number): unknown {
  if (chance(r, 0.4)) return oddValue(r, depth);
  if (/date|Date|opens/.test(key)) return pick(r, DATES);
  if (/url|image|logo|sameAs|@id/.test(key)) return pick(r, URLS);
  if (
    [
      'author',
      'publisher',
      'brand',
      'location',
      'seller',
      'itemReviewed',
      'offers',
      'aggregateRating',
      'geo',
      'address',
      'mainEntity',
      'acceptedAnswer',
      'openingHoursSpecification',
    ].includes(key)
  ) {
    return depth < 3
      ? chance(r, 0.3)
        ? times(int(r, 0, 3), () => ldNode(r, depth + 1))
        : ldNode(r, depth + 1)
      : text(r);
  }
  if (key === '@graph')
    return times(int(r, 0, 3), () => (chance(r, 0.8) ? ldNode(r, depth + 1) : oddValue(r, depth + 1)));
  return text(r);
}

function ldNode(r: Rng, depth = 0): Record<string, unknown> {
  const node: Record<string, unknown> = {};
  if (chance(r, 0.9))
    put(
      node,
      '@type',
      chance(r, 0.2) ? [pick(r, TYPES), pick(r, TYPES)] : chance(r, 0.1) ? oddValue(r, depth) : pick(r, TYPES),
    );
  for (let i = int(r, 0, depth === 0 ? 14 : 5); i > 0; i -= 1) {
    const key = pick(r, PROPERTIES);
    put(node, key, propertyValue(r, key, depth));
  }
  return node;
}

function jsonLdBlock(r: Rng): string {
  const members = chance(r, 0.1) ? int(r, 100, 600) : int(r, 0, 4);
  const value = chance(r, 0.2)
    ? { '@context': 'https://schema.org', '@graph': times(members, () => ldNode(r)) }
    : chance(r, 0.1)
      ? times(3, () => ldNode(r))
      : ldNode(r);
  let json = JSON.stringify(value);
  if (chance(r, 0.1)) json = json.slice(0, Math.floor(json.length / 2));
  if (chance(r, 0.05)) json = `<![CDATA[${json}]]>`;
  if (chance(r, 0.05)) json = `{"@type":"Product","name":${'['.repeat(5000)}"x"${']'.repeat(5000)}}`;
  return `<script type="application/ld+json">${json}</script>`;
}

const attr = (value: string): string => value.replace(/"/g, '&quot;');

function keyValueRows(r: Rng, rows: number, cell: string): string {
  return times(
    rows,
    (i) => `<tr><${cell}>${pick(r, LABELS)}${i % 7 === 0 ? ' ' + i : ''}</${cell}><td>${text(r)}</td></tr>`,
  ).join('');
}

function block(r: Rng, depth: number): string {
  switch (int(r, 0, 20)) {
    case 18:
      return rdfa(r, depth);
    case 19:
      return microformat(r, depth);
    case 20:
      return `<div itemscope itemtype="${attr(pick(r, TYPES))}" itemref="${pick(r, ['a b', 'a a a', 'missing', '', 'self'])}" id="self"><span itemprop="name">${text(r)}</span></div><p id="a"><span itemprop="${pick(r, PROPERTIES)}">${text(r)}</span></p><div id="b" itemprop="${pick(r, PROPERTIES)}" itemscope>${text(r)}</div>`;
    case 0:
      return `<p>${text(r)} <a href="${attr(pick(r, URLS))}">${text(r)}</a>${pick(r, ['<br>', '<br><br>', ''])}${text(r)}</p>`;
    case 1:
      return `<h${int(r, 1, 3)}>${text(r)}${chance(r, 0.3) ? '?' : ''}</h${int(r, 1, 3)}>`;
    case 2:
      return `<dl>${times(int(r, 1, 6), () => `<dt>${pick(r, LABELS)}</dt><dd>${text(r)}</dd>`).join('')}</dl>`;
    case 3:
      return `<table>${chance(r, 0.3) ? '<tr><th>Key</th><th>Value</th></tr>' : ''}${keyValueRows(r, chance(r, 0.08) ? int(r, 1000, 4000) : int(r, 1, 12), pick(r, ['td', 'th']))}</table>`;
    case 4:
      return `<table><tbody>${times(int(r, 1, 5), () => `<tr>${times(int(r, 1, 4), () => `<td>${text(r)}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
    case 5:
      return `<details><summary>${text(r)}</summary>${text(r)}</details>`;
    case 6:
      return `<ul>${times(int(r, 0, 5), () => `<li>${text(r)}</li>`).join('')}</ul>`;
    case 7:
      return pick(r, [
        `<p class="byline">By ${text(r)}</p>`,
        `<a rel="author" href="/a">${text(r)}</a>`,
        `<span itemprop="author"><span itemprop="name">${text(r)}</span></span>`,
      ]);
    case 8:
      return `<nav><a href="/">${text(r)}</a></nav><footer>${text(r)}</footer><aside class="sidebar">${text(r)}</aside>`;
    case 9:
      return `<div hidden>${text(r)}</div><div style="display:none">${text(r)}</div><span aria-hidden="true">${text(r)}</span>`;
    case 10:
      return microdata(r, depth);
    case 11:
      return `<pre>${text(r)}\n\n${text(r)}</pre>`;
    case 12:
      return `<script>var x = "</p>";</script><style>p{}</style><noscript>${text(r)}</noscript><!-- ${text(r)} --><![CDATA[ x ]]>`;
    case 13:
      return `<div><p>unclosed <b><i>${text(r)}</p></span></div></div><table><tr><td>${text(r)}`;
    case 14: {
      const n = int(r, 100, 5000);
      const tag = pick(r, ['div', 'span', 'section', 'b']);
      return `<${tag}>`.repeat(n) + `<p>${text(r)}</p>` + (chance(r, 0.7) ? `</${tag}>`.repeat(n) : '');
    }
    case 15:
      return `<p dir="rtl">${text(r)} <time datetime="${attr(pick(r, DATES))}">${text(r)}</time></p>`;
    case 16:
      return depth < 4 ? `<article>${times(int(r, 1, 4), () => block(r, depth + 1)).join('')}</article>` : text(r);
    default:
      return `<div class="${pick(r, ['content', 'comment', 'author', 'main', ''])}">${text(r)}${depth < 4 ? block(r, depth + 1) : ''}</div>`;
  }
}

/** RDFa Lite with odd vocabularies, prefixes, CURIEs and values. */
function rdfa(r: Rng, depth: number): string {
  const vocab = chance(r, 0.8)
    ? ` vocab="${pick(r, ['https://schema.org/', 'http://schema.org', 'http://xmlns.com/foaf/0.1/', '', 'schema.org'])}"`
    : '';
  const prefix = chance(r, 0.3)
    ? ` prefix="${pick(r, ['s: http://schema.org/', 's:', 'x: y: z', 'og: http://ogp.me/ns#'])}"`
    : '';
  const props = times(int(r, 0, 6), () => {
    const prop = pick(r, [
      ...PROPERTIES.slice(0, 30),
      's:name',
      'og:title',
      'http://schema.org/sku',
      '__proto__',
      '@type',
      '',
    ]);
    if (depth < 3 && chance(r, 0.2))
      return `<div property="${prop}" typeof="${attr(pick(r, TYPES))}">${rdfa(r, depth + 1)}</div>`;
    return pick(r, [
      `<span property="${prop}">${text(r)}</span>`,
      `<meta property="${prop}" content="${attr(text(r))}">`,
      `<a property="${prop}" href="${attr(pick(r, URLS))}">${text(r)}</a>`,
      `<time property="${prop}" datetime="${attr(pick(r, DATES))}">x</time>`,
      `<span property="${prop}" resource="${attr(pick(r, URLS))}"></span>`,
    ]);
  }).join('');
  return `<div${vocab}${prefix} typeof="${attr(pick(r, TYPES))}"${chance(r, 0.3) ? ` resource="${attr(pick(r, URLS))}"` : ''}>${props}</div>`;
}

/** microformats2 roots with odd property classes and values. */
function microformat(r: Rng, depth: number): string {
  const root = pick(r, [
    'h-card',
    'h-entry',
    'h-event',
    'h-product',
    'h-review',
    'h-adr',
    'h-geo',
    'h-item',
    'h-unknown',
  ]);
  const props = times(int(r, 0, 6), () => {
    const name = pick(r, [
      'name',
      'url',
      'photo',
      'author',
      'published',
      'start',
      'location',
      'price',
      'rating',
      'category',
      'email',
      'org',
      '__proto__',
      'constructor',
    ]);
    const kind = pick(r, ['p', 'u', 'dt', 'e']);
    if (depth < 3 && chance(r, 0.2)) return `<div class="${kind}-${name} h-card">${microformat(r, depth + 1)}</div>`;
    return pick(r, [
      `<span class="${kind}-${name}">${text(r)}</span>`,
      `<a class="${kind}-${name}" href="${attr(pick(r, URLS))}">${text(r)}</a>`,
      `<time class="${kind}-${name}" datetime="${attr(pick(r, DATES))}">x</time>`,
      `<img class="${kind}-${name}" src="${attr(pick(r, URLS))}" alt="${attr(text(r))}">`,
    ]);
  }).join('');
  return `<div class="${root}">${props}</div>`;
}

function microdata(r: Rng, depth: number): string {
  const props = times(int(r, 0, 6), () => {
    const prop = pick(r, [...PROPERTIES.slice(0, 30), '__proto__', 'constructor', '4.1.6', '']);
    if (depth < 3 && chance(r, 0.2))
      return `<div itemprop="${prop}" itemscope itemtype="${attr(pick(r, TYPES))}">${microdata(r, depth + 1)}</div>`;
    return pick(r, [
      `<span itemprop="${prop}">${text(r)}</span>`,
      `<meta itemprop="${prop}" content="${attr(text(r))}">`,
      `<a itemprop="${prop}" href="${attr(pick(r, URLS))}">${text(r)}</a>`,
      `<time itemprop="${prop}" datetime="${attr(pick(r, DATES))}">x</time>`,
      `<img itemprop="${prop}" src="${attr(pick(r, URLS))}">`,
    ]);
  }).join('');
  return `<div itemscope itemtype="${attr(pick(r, TYPES))}"${chance(r, 0.2) ? ` itemid="${attr(pick(r, URLS))}"` : ''}>${props}</div>`;
}

function head(r: Rng): string {
  const metas = times(int(r, 0, 10), () => {
    const key = pick(r, [
      'og:title',
      'description',
      'author',
      'article:published_time',
      'article:modified_time',
      'og:image',
      'og:site_name',
      'keywords',
      'dc:creator',
      'article:section',
      'article:tag',
      'product:price:amount',
      'product:price:currency',
      'twitter:title',
      'parsely-pub-date',
      'og:url',
      'og:locale',
      'og:type',
      'product:availability',
      'profile:first_name',
      'music:release_date',
      'video:actor',
      'book:isbn',
      'book:author',
      'twitter:creator',
      'twitter:site',
      'DC.subject',
      'DCTERMS.modified',
      'dcterms:created',
      'shop:brand',
      'product:x-odd.key',
    ]);
    const value = /time|date/.test(key)
      ? pick(r, DATES)
      : /image/.test(key)
        ? pick(r, URLS)
        : /amount/.test(key)
          ? pick(r, ['12,50', '1.299,00', 'abc', '1e309', '', '-0'])
          : text(r);
    return chance(r, 0.5)
      ? `<meta property="${key}" content="${attr(value)}">`
      : `<meta name="${key}" content="${attr(value)}">`;
  }).join('');
  const links =
    (chance(r, 0.5) ? `<link rel="canonical" href="${attr(pick(r, URLS))}">` : '') +
    (chance(r, 0.2)
      ? `<link rel="schema.DCTERMS" href="http://purl.org/dc/terms/"><link rel="DCTERMS.${pick(r, ['relation', 'license', 'isPartOf', '__proto__'])}" href="${attr(pick(r, URLS))}">`
      : '');
  const base = chance(r, 0.2) ? `<base href="${attr(pick(r, URLS))}">` : '';
  const language = chance(r, 0.2) ? `<meta http-equiv="Content-Language" content="${attr(pick(r, HTML_LANGS))}">` : '';
  return `<head><title>${chance(r, 0.8) ? text(r) : ''}${chance(r, 0.3) ? ' | Acme Shop' : ''}</title>${metas}${links}${base}${language}${times(int(r, 0, 3), () => jsonLdBlock(r)).join('')}</head>`;
}

function html(r: Rng): string {
  const lang =
    (chance(r, 0.7) ? ` lang="${attr(pick(r, HTML_LANGS))}"` : '') +
    (chance(r, 0.2) ? ` prefix="shop: http://ogp.me/ns/product# bad: :"` : '');
  return `<!doctype html><html${lang}>${head(r)}<body>${times(int(r, 1, 10), () => block(r, 0)).join('\n')}</body></html>`;
}

function oddJson(r: Rng): Record<string, unknown> {
  const json: Record<string, unknown> = {};
  const keys = [
    'seo',
    'author',
    'tags',
    'categories',
    'price',
    'images',
    'description',
    'profile_type',
    'kind',
    'brand',
    'fields',
    '4.1.6',
    'constructor',
    '__proto__',
    '価格',
    'dateModified',
    'sku',
    'color',
    'deep',
  ];
  for (const key of keys) {
    if (!chance(r, 0.4)) continue;
    let value: unknown;
    if (key === 'seo') value = { title: oddValue(r, 0), description: oddValue(r, 0), keywords: oddValue(r, 0) };
    else if (key === 'price')
      value = chance(r, 0.7)
        ? {
            amount: pick(r, ['12,50', 'abc', 1e308, null, '1.299,00', -3]),
            currency: pick(r, ['eur', '€', 'EURO', '', 'usd']),
            valid_from: pick(r, DATES),
            valid_until: pick(r, DATES),
            availability: oddValue(r, 0),
          }
        : oddValue(r, 0);
    else if (key === 'images')
      value = times(int(r, 0, 3), () => (chance(r, 0.5) ? pick(r, URLS) : { url: oddValue(r, 0), src: pick(r, URLS) }));
    else if (key === 'fields')
      value = {
        a: oddValue(r, 0),
        title: text(r),
        lang: pick(r, HTML_LANGS),
        canonical: pick(r, URLS),
        updated: pick(r, DATES),
        body: text(r),
      };
    else if (key === 'deep') value = deepArray(int(r, 1, 20), { name: text(r) });
    else value = oddValue(r, 0);
    put(json, key, value);
  }
  return json;
}

const ON_SITE_URLS = [
  'https://shop.example/p/',
  'HTTPS://SHOP.EXAMPLE/Upper/',
  'https://shop.example/a b/',
  'https://shop.example/価格/',
  'https:\\\\shop.example\\back\\',
  'http:shop.example/no-slashes/',
  'https://shop.example:443/port/',
  'https://shop.example/%zz/',
  'https://shop.example/\u200b/',
  'https://shop.example/' + 'x'.repeat(3000) + '/',
];
const UPDATED = ['2026-01-31T12:00:00Z', '2024-02-29T23:59:59.999Z', '1970-01-01T00:00:00Z', '9999-12-31T23:59:59Z'];

/** One odd item of the website shop.example; `index` keeps ids and urls of one run apart. */
export function oddItem(r: Rng, index: number): IngestItem {
  const url = pick(r, ON_SITE_URLS) + index + (chance(r, 0.3) ? '?utm_source=x&b=2&a=1#frag' : '');
  const id = `odd-${index}${pick(r, ['', ' ', '/x', '価格', '\u200b', '#?', 'i'.repeat(250)])}`.slice(0, 256);
  const item: Record<string, unknown> = { type: pick(r, SOURCE_TYPES), id, url };
  const bodies = pick(r, [['html'], ['html'], ['html', 'json'], ['text'], ['json'], ['html', 'text', 'json']]);
  if (bodies.includes('html')) item.html = html(r);
  if (bodies.includes('text'))
    item.text = times(int(r, 1, 6), () => (chance(r, 0.3) ? `# ${text(r)}` : text(r))).join(
      pick(r, ['\n\n', '\n', '\r\n\r\n']),
    );
  if (bodies.includes('json')) item.json = oddJson(r);
  if (chance(r, 0.3)) item.attributes = oddJson(r);
  if (chance(r, 0.3))
    item.canonical_url = pick(r, [
      ...ON_SITE_URLS.map((u) => u + 'canonical'),
      'https://other.example/x',
      'HTTP://SHOP.EXAMPLE/C A',
    ]);
  if (chance(r, 0.5)) item.title = text(r).slice(0, 1024);
  if (chance(r, 0.5)) item.language = pick(r, ITEM_LANGUAGES);
  if (chance(r, 0.3)) item.updated_at = pick(r, UPDATED);
  item.checksum = 'sha256:' + createHash('sha256').update(JSON.stringify(item)).digest('hex');
  return item as unknown as IngestItem;
}

/** Field mappings of a website, with odd attribute names. */
export function oddMappings(r: Rng): FieldMapping[] {
  return [
    {
      source_path: 'json.fields.a',
      target: 'attribute',
      attribute_name: pick(
        r,
        LABELS.filter((l) => l !== ''),
      ),
      provenance_method: 'cms_field',
    },
    { source_path: 'json.fields.title', target: 'title', provenance_method: 'cms_field' },
    { source_path: 'json.fields.lang', target: 'language', provenance_method: 'cms_field' },
    { source_path: 'json.fields.canonical', target: 'canonical_url', provenance_method: 'cms_field' },
    { source_path: 'json.fields.updated', target: 'updated_at', provenance_method: 'cms_field' },
    { source_path: 'json.fields.body', target: 'text', provenance_method: 'text_extraction' },
  ];
}
