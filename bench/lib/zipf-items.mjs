// Generated product and post pages whose text draws Zipf-distributed words from a 4,000-word
// vocabulary (a site's text is not one repeated sentence), for the knowledge benchmarks.
// Deterministic: the same seed gives the same items.
const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ne',
  'ru',
  'sa',
  'to',
  'vi',
  'ze',
  'bo',
  'da',
  'fe',
  'gu',
  'hi',
  'jo',
  'pa',
  'qui',
  'ser',
  'tan',
  'vel',
];

export const VOCAB = Array.from({ length: 4000 }, (_, i) => {
  let w = '';
  for (let n = i; ; n = Math.floor(n / SYLLABLES.length) - 1) {
    w = SYLLABLES[n % SYLLABLES.length] + w;
    if (n < SYLLABLES.length) break;
  }
  return w.length < 4 ? w + 'ra' : w;
});

const CUMULATIVE = (() => {
  let sum = 0;
  return VOCAB.map((_, r) => (sum += 1 / (r + 1)));
})();

/** A seeded generator: random() in [0, 1), word() by Zipf rank, item(i) an IngestItem. */
export function createItemGenerator(seed = 42) {
  let state = seed;
  const random = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  const word = () => {
    const x = random() * CUMULATIVE[CUMULATIVE.length - 1];
    let lo = 0,
      hi = CUMULATIVE.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (CUMULATIVE[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return VOCAB[lo];
  };
  const words = (n) => Array.from({ length: n }, word).join(' ');
  const item = (i) => {
    const name = `${words(2)} ${i % 3 === 0 ? 'journal' : 'model'} ${i}`;
    const ld = {
      '@context': 'https://schema.org',
      '@type': i % 3 === 0 ? 'BlogPosting' : 'Product',
      name,
      headline: name,
      sku: `SKU-${i}`,
      author: { '@type': 'Person', name: `${words(1)} ${words(1)}` },
      brand: { '@type': 'Brand', name: `Brand ${i % 200}` },
      offers: {
        '@type': 'Offer',
        price: (10 + (i % 90)).toFixed(2),
        priceCurrency: 'EUR',
        availability: 'https://schema.org/InStock',
      },
    };
    const paragraphs = Array.from({ length: 6 }, () => `<p>${words(24)}.</p>`).join('');
    const html = `<html lang="en"><head><title>${name}</title><meta name="description" content="${words(12)}."><meta property="og:title" content="${name}">
    <script type="application/ld+json">${JSON.stringify(ld)}</script></head><body><main><h1>${name}</h1><h2>${words(2)}</h2>${paragraphs}</main></body></html>`;
    return {
      type: i % 3 === 0 ? 'post' : 'product',
      id: String(i),
      url: `https://shop.example/p/${i}`,
      html,
      checksum: 'sha256:' + i.toString(16).padStart(64, '0'),
    };
  };
  return { random, word, words, item };
}
