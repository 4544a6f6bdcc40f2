// The pages of a generated website for bench/scale.mjs: products, posts, FAQs, events, shop
// locations, docs and plain pages in the shares a shop with a blog has, with Zipf-distributed
// words (bench/lib/zipf-items.mjs's vocabulary), a long tail of page sizes (a few paragraphs to
// about a hundred) and their structured data (JSON-LD mostly, Microdata on a tenth of the
// products, none on plain pages). Deterministic per page number: page i is the same whatever
// else is generated, so a bench can generate a million pages a batch at a time.
// Without a checksum: each bench adds its own.
import { createItemGenerator } from './zipf-items.mjs';

/** [source type, share]: a shop with a blog, docs and a few stores. */
const KINDS = [
  ['product', 0.4],
  ['post', 0.22],
  ['page', 0.13],
  ['faq', 0.07],
  ['doc', 0.07],
  ['event', 0.06],
  ['location', 0.05],
];
const CUMULATIVE_SHARE = (() => {
  let sum = 0;
  return KINDS.map(([kind, share]) => [kind, (sum += share)]);
})();

/** A page's own generator: seeded by its number, mixed so neighbouring pages do not correlate. */
function pageGenerator(i, seed) {
  let h = (Math.imul(i + 1, 2654435761) ^ seed) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 2246822507) >>> 0;
  h = (Math.imul(h ^ (h >>> 13), 3266489909) ^ (h >>> 16)) >>> 0;
  return createItemGenerator((h % 2147483646) + 1);
}

/** A count with a long tail: mostly near `min`, sometimes up to `max` (a log-uniform draw). */
function longTail(random, min, max) {
  return Math.floor(min * Math.pow(max / min, random() ** 2));
}

const escape = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/**
 * Page i of the site on `domain`: { type, id, url, html }. Sizes run from about 1 KB to about
 * 40 KB of HTML (median about 3 KB).
 */
export function sitePage(i, domain, seed = 7) {
  const g = pageGenerator(i, seed);
  const r = g.random();
  const kind = CUMULATIVE_SHARE.find(([, upTo]) => r < upTo)?.[0] ?? 'page';
  const para = () => `<p>${escape(g.words(10 + Math.floor(g.random() * 50)))}.</p>`;
  const paras = (min, max) => Array.from({ length: longTail(g.random, min, max) }, para).join('');
  const title = `${g.words(2)} ${g.words(1)} ${i}`;
  let ld;
  let body;
  let microdata = '';
  switch (kind) {
    case 'product': {
      const price = (5 + (i % 400) + g.random()).toFixed(2);
      if (g.random() < 0.1) {
        microdata = `<div itemscope itemtype="https://schema.org/Product"><span itemprop="name">${title}</span><span itemprop="sku">SKU-${i}</span><div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><meta itemprop="priceCurrency" content="EUR"><span itemprop="price">${price}</span></div></div>`;
      } else {
        ld = {
          '@context': 'https://schema.org',
          '@type': 'Product',
          name: title,
          sku: `SKU-${i}`,
          gtin13: String(4000000000000 + i),
          description: g.words(16),
          brand: { '@type': 'Brand', name: `Brand ${i % 300}` },
          offers: {
            '@type': 'Offer',
            price,
            priceCurrency: 'EUR',
            availability: g.random() < 0.9 ? 'https://schema.org/InStock' : 'https://schema.org/OutOfStock',
          },
          ...(g.random() < 0.4
            ? {
                aggregateRating: {
                  '@type': 'AggregateRating',
                  ratingValue: (3 + g.random() * 2).toFixed(1),
                  reviewCount: 1 + Math.floor(g.random() * 400),
                },
              }
            : {}),
        };
      }
      body = `<h2>${g.words(2)}</h2>${paras(3, 20)}<h2>Specifications</h2><ul>${Array.from(
        { length: 3 + Math.floor(g.random() * 8) },
        () => `<li>${g.words(2)}: ${g.words(3)}</li>`,
      ).join('')}</ul>`;
      break;
    }
    case 'post':
      ld = {
        '@context': 'https://schema.org',
        '@type': 'BlogPosting',
        headline: title,
        datePublished: `20${10 + (i % 16)}-0${1 + (i % 9)}-1${i % 10}`,
        author: { '@type': 'Person', name: `${g.words(1)} ${g.words(1)}` },
        keywords: g.words(4).split(' ').join(', '),
      };
      body = paras(4, 100);
      break;
    case 'faq': {
      const questions = Array.from({ length: 3 + Math.floor(g.random() * 9) }, () => [
        `${g.words(6)}?`,
        g.words(20 + Math.floor(g.random() * 40)),
      ]);
      ld = {
        '@context': 'https://schema.org',
        '@type': 'FAQPage',
        name: title,
        mainEntity: questions.map(([q, a]) => ({
          '@type': 'Question',
          name: q,
          acceptedAnswer: { '@type': 'Answer', text: a },
        })),
      };
      body = questions.map(([q, a]) => `<h3>${escape(q)}</h3><p>${escape(a)}</p>`).join('');
      break;
    }
    case 'event':
      ld = {
        '@context': 'https://schema.org',
        '@type': 'Event',
        name: title,
        startDate: `2027-0${1 + (i % 9)}-1${i % 10}T18:00:00+01:00`,
        location: { '@type': 'Place', name: `${g.words(1)} hall`, address: `${g.words(1)} street ${i % 90}` },
        offers: { '@type': 'Offer', price: String(10 + (i % 40)), priceCurrency: 'EUR' },
      };
      body = paras(2, 12);
      break;
    case 'location':
      ld = {
        '@context': 'https://schema.org',
        '@type': 'LocalBusiness',
        name: `${title} store`,
        telephone: `+49 30 ${String(1000000 + i).slice(-7)}`,
        openingHours: 'Mo-Fr 09:00-18:00',
        address: {
          '@type': 'PostalAddress',
          streetAddress: `${g.words(1)} street ${i % 200}`,
          addressLocality: g.words(1),
          postalCode: String(10000 + (i % 89999)),
          addressCountry: 'DE',
        },
      };
      body = paras(1, 6);
      break;
    case 'doc':
      ld = { '@context': 'https://schema.org', '@type': 'TechArticle', headline: title, about: g.words(3) };
      body = Array.from({ length: 2 + Math.floor(g.random() * 6) }, () => `<h2>${g.words(3)}</h2>${paras(2, 20)}`).join(
        '',
      );
      break;
    default:
      body = paras(2, 40);
  }
  const script = ld ? `<script type="application/ld+json">${JSON.stringify(ld)}</script>` : '';
  const html = `<html lang="en"><head><title>${title}</title><meta name="description" content="${g.words(14)}."><meta property="og:title" content="${title}">${script}</head><body><nav><a href="/">Home</a> <a href="/${kind}/">${kind}</a></nav><main><h1>${title}</h1>${microdata}${body}</main><footer>${g.words(8)}</footer></body></html>`;
  return { type: kind === 'location' ? 'location' : kind, id: String(i), url: `https://${domain}/${kind}/${i}`, html };
}

/** The source types sitePage uses, for a connector's --source-types. */
export const SITE_SOURCE_TYPES = KINDS.map(([kind]) => kind);
