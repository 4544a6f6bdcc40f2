// The generated product and post pages of bench/e2e.mjs and bench/written-check.mjs: JSON-LD
// (author, brand, offer), a title, meta tags and 12 paragraphs (bench/graph.mjs's pages, one
// description aside). Without a checksum: each bench adds its own.
const AUTHORS = ['Jane Doe', 'John Roe', 'Ann Poe', 'Max Moe'];

export function kettlePage(i, domain) {
  const name = `Steel kettle model ${i}`;
  const ld = {
    '@context': 'https://schema.org',
    '@type': i % 3 === 0 ? 'BlogPosting' : 'Product',
    name,
    headline: name,
    sku: `SKU-${i}`,
    author: { '@type': 'Person', name: AUTHORS[i % AUTHORS.length] },
    brand: { '@type': 'Brand', name: 'Acme' },
    offers: {
      '@type': 'Offer',
      price: (10 + (i % 90)).toFixed(2),
      priceCurrency: 'EUR',
      availability: 'https://schema.org/InStock',
    },
  };
  const paragraphs = Array.from(
    { length: 12 },
    (_, p) =>
      `<p>Paragraph ${p} of ${name}: the kettle boils water quickly and keeps it warm for a long evening in the kitchen, made of brushed steel.</p>`,
  ).join('');
  const html = `<html lang="en"><head><title>${name}</title><meta name="description" content="${name}."><meta property="og:title" content="${name}">
    <script type="application/ld+json">${JSON.stringify(ld)}</script></head><body><main><h1>${name}</h1><h2>Details</h2>${paragraphs}</main></body></html>`;
  return { type: i % 3 === 0 ? 'post' : 'product', id: String(i), url: `https://${domain}/p/${i}`, html };
}
