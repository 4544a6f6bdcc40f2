import type { RawRow } from './extract-row.js';
import type { WebsiteInfo } from '../../control/records/website-info.js';

/**
 * Made-up pages an extraction worker extracts when the daemon starts, before any real batch
 * (docs/graph.md "A warm start"): V8 optimises the extractor's code only after running it many
 * times, and a cold worker extracted the first few thousand items of an ingest at about half its
 * later speed. The pages cover the common shapes (JSON-LD products, articles, events, FAQs,
 * microdata, plain pages with only meta tags, text items) so that the code every site runs is
 * optimised, not one site's. Deterministic: page i is always the same page.
 */

export const WARM_UP_SITE: WebsiteInfo = {
  websiteId: 'web_warm_up',
  domain: 'warm-up.example',
  brand: 'Warm Up',
  defaultLanguage: 'en',
  plan: 'business',
  verification: { method: 'dns_txt', state: 'verified' },
  aliases: [],
};

const PEOPLE = ['Ada Byron', 'Alan Turing', 'Grace Hopper', 'Edsger Dijkstra', 'Barbara Liskov'];
const THINGS = ['kettle', 'lamp', 'chair', 'backpack', 'teapot', 'bicycle', 'notebook'];
const CITIES = ['Lisbon', 'Berlin', 'Oslo', 'Quito', 'Osaka'];

const paragraphs = (subject: string, n: number, i: number): string =>
  Array.from(
    { length: n },
    (_, p) =>
      `<p>Part ${p + 1} about the ${subject}: it was tested for ${3 + ((i + p) % 9)} weeks in ${CITIES[(i + p) % CITIES.length]}, and the notes say what worked and what did not.</p>`,
  ).join('');

const ld = (value: unknown): string => `<script type="application/ld+json">${JSON.stringify(value)}</script>`;

function productPage(i: number, url: string): string {
  const name = `Steel ${THINGS[i % THINGS.length]} ${i}`;
  return `<!doctype html><html lang="en"><head><title>${name} | Warm Up</title><meta name="description" content="The ${name}, made to last.">
    <meta property="og:title" content="${name}"><meta property="og:type" content="product"><meta property="og:site_name" content="Warm Up">
    ${ld({
      '@context': 'https://schema.org',
      '@type': 'Product',
      name,
      sku: `W-${i}`,
      gtin13: String(4006381333931 + i),
      url,
      brand: { '@type': 'Brand', name: 'Warm Up' },
      aggregateRating: { '@type': 'AggregateRating', ratingValue: 4 + (i % 10) / 10, reviewCount: 10 + i },
      offers: {
        '@type': 'Offer',
        price: (9 + (i % 90)).toFixed(2),
        priceCurrency: 'EUR',
        availability: 'https://schema.org/InStock',
        url,
      },
      review: [
        {
          '@type': 'Review',
          author: { '@type': 'Person', name: PEOPLE[i % PEOPLE.length] },
          reviewRating: { '@type': 'Rating', ratingValue: 5 },
          reviewBody: 'Works well.',
        },
      ],
    })}
    </head><body><nav><a href="/">Home</a> <a href="/shop">Shop</a></nav><main><h1>${name}</h1><ul><li>Weight: ${1 + (i % 5)} kg</li><li>Colour: steel</li></ul>
    <h2>Details</h2>${paragraphs(name, 6, i)}</main><footer>© 2020-2026 Warm Up Ltd. All rights reserved.</footer></body></html>`;
}

function articlePage(i: number, url: string): string {
  const title = `What ${i} weeks with a ${THINGS[i % THINGS.length]} taught us`;
  const author = PEOPLE[(i + 1) % PEOPLE.length]!;
  const day = `2026-0${1 + (i % 9)}-1${i % 10}`;
  return `<!doctype html><html lang="en"><head><title>${title} - Warm Up Journal</title><meta name="author" content="${author}">
    <meta property="og:type" content="article"><meta property="article:published_time" content="${day}T09:30:00+02:00"><meta name="twitter:site" content="@warmup">
    ${ld({
      '@context': 'https://schema.org',
      '@type': i % 2 === 0 ? 'BlogPosting' : 'NewsArticle',
      headline: title,
      datePublished: `${day}T09:30:00+02:00`,
      url,
      author: [{ '@type': 'Person', name: author, url: `https://warm-up.example/authors/${i % PEOPLE.length}` }],
      publisher: {
        '@type': 'Organization',
        name: 'Warm Up',
        logo: { '@type': 'ImageObject', url: 'https://warm-up.example/logo.png' },
      },
      mainEntityOfPage: url,
    })}
    </head><body><article><header><h1>${title}</h1><p class="byline">By <a rel="author" href="/authors/${i % PEOPLE.length}">${author}</a> · <time datetime="${day}">${day}</time></p></header>
    ${paragraphs('test', 4, i)}<h2>What we learned</h2>${paragraphs('result', 4, i + 1)}<h3>Next</h3><p>More soon.</p></article></body></html>`;
}

function eventPage(i: number, url: string): string {
  const city = CITIES[i % CITIES.length]!;
  const name = `${city} Makers Fair ${2026 + (i % 3)}`;
  return `<!doctype html><html lang="en"><head><title>${name}</title><meta name="description" content="Two days of makers in ${city}.">
    ${ld({
      '@context': 'https://schema.org',
      '@graph': [
        {
          '@type': 'Event',
          '@id': `${url}#event`,
          name,
          startDate: `2026-06-1${i % 10}T20:00:00-07:00`,
          endDate: `2026-06-1${i % 10}T23:00:00-07:00`,
          eventStatus: 'https://schema.org/EventScheduled',
          location: {
            '@type': 'Place',
            name: `${city} Hall`,
            address: { '@type': 'PostalAddress', addressLocality: city, streetAddress: `${i} Main Street` },
          },
          organizer: { '@type': 'Organization', name: 'Warm Up', url: 'https://warm-up.example/' },
          offers: { '@type': 'Offer', price: '12', priceCurrency: 'EUR', url },
        },
        {
          '@type': 'BreadcrumbList',
          itemListElement: [
            { '@type': 'ListItem', position: 1, name: 'Events', item: 'https://warm-up.example/events' },
          ],
        },
      ],
    })}
    </head><body><main><h1>${name}</h1><p>Doors open at 20:00.</p>${paragraphs('fair', 3, i)}</main></body></html>`;
}

function faqPage(i: number): string {
  const thing = THINGS[i % THINGS.length]!;
  const qa = [0, 1, 2].map((q) => ({
    '@type': 'Question',
    name: `How do I clean the ${thing} (${q + 1})?`,
    acceptedAnswer: { '@type': 'Answer', text: `Use warm water and a soft cloth, step ${q + 1}.` },
  }));
  return `<!doctype html><html lang="en"><head><title>${thing} FAQ</title>${ld({ '@context': 'https://schema.org', '@type': 'FAQPage', mainEntity: qa })}</head>
    <body><main><h1>Questions about the ${thing}</h1>${qa.map((q) => `<h2>${q.name}</h2><p>${q.acceptedAnswer.text}</p>`).join('')}</main></body></html>`;
}

function microdataPage(i: number): string {
  const name = `Soup number ${i}`;
  return `<!doctype html><html lang="en"><head><title>${name}</title><meta property="og:description" content="A soup for cold days."></head><body>
    <div itemscope itemtype="https://schema.org/Recipe"><h1 itemprop="name">${name}</h1><span itemprop="author" itemscope itemtype="https://schema.org/Person"><span itemprop="name">${PEOPLE[i % PEOPLE.length]}</span></span>
    <meta itemprop="totalTime" content="PT${20 + (i % 40)}M"><ul><li itemprop="recipeIngredient">2 carrots</li><li itemprop="recipeIngredient">1 onion</li></ul>
    <div itemprop="recipeInstructions">${paragraphs('soup', 3, i)}</div></div></body></html>`;
}

function plainPage(i: number): string {
  return `<!doctype html><html lang="en-GB"><head><title>About us | Warm Up</title><meta name="description" content="Who we are, page ${i}."><meta name="application-name" content="Warm Up">
    <link rel="canonical" href="https://warm-up.example/about/${i}"></head><body><header><a href="/">Warm Up</a></header><main><h1>About us</h1>${paragraphs('team', 5, i)}
    <table><tr><th>Founded</th><td>2019</td></tr><tr><th>People</th><td>${10 + i}</td></tr></table></main><footer><p>Copyright 2026 Warm Up</p></footer></body></html>`;
}

/** The ingest item of warm-up page `i` (a JSON string, as raw_items.body holds it). */
function warmUpItem(i: number): { type: string; body: string } {
  const url = `https://warm-up.example/pages/${i}`;
  const checksum = 'sha256:' + i.toString(16).padStart(64, '0');
  const shape = i % 7;
  if (shape === 6) {
    const text = `Opening hours ${i}\n\nWe are open from 9 to 17 on weekdays in ${CITIES[i % CITIES.length]}.\n\nOn holidays the shop is closed.`;
    return { type: 'page', body: JSON.stringify({ type: 'page', id: `w${i}`, url, text, checksum }) };
  }
  const [type, html] =
    shape === 0
      ? ['product', productPage(i, url)]
      : shape === 1
        ? ['post', articlePage(i, url)]
        : shape === 2
          ? ['event', eventPage(i, url)]
          : shape === 3
            ? ['faq', faqPage(i)]
            : shape === 4
              ? ['page', microdataPage(i)]
              : ['page', plainPage(i)];
  return {
    type,
    body: JSON.stringify({
      type,
      id: `w${i}`,
      url,
      html,
      checksum,
      ...(shape === 0 ? { attributes: { stock: i % 20 } } : {}),
    }),
  };
}

/** Warm-up pages first to first + count - 1, as raw rows. */
export function warmUpRows(first: number, count: number): RawRow[] {
  return Array.from({ length: count }, (_, k) => {
    const i = first + k;
    const { type, body } = warmUpItem(i);
    return {
      raw_content_id: `raw_warm_up_${i}`,
      item_type: type,
      item_id: `w${i}`,
      body,
      received_at: '2026-01-01T00:00:00.000Z',
    };
  });
}
