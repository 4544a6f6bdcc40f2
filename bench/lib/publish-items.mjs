// The items of the publish benches: products (with a price) and articles of 120 words; a
// revision changes the text, and a product's price.
export function publishBenchItem(i, revision, domain = 'bench.example') {
  const DOMAIN = domain;
  const kind = i % 3 === 0 ? 'post' : 'product';
  const words = Array.from(
    { length: 120 },
    (_, w) => ['coffee', 'grinder', 'roast', 'espresso', 'filter', 'bean', 'origin', 'brew'][(i * 7 + w) % 8],
  ).join(' ');
  const body = `${kind === 'product' ? 'Product' : 'Article'} ${i}${revision ? ` (revised ${revision})` : ''}\n\n${words}.\n\nMade in Hamburg. Item number ${i}.`;
  const base = {
    type: kind,
    id: `${kind}:${i}`,
    url: `https://${DOMAIN}/${kind}s/${i}`,
    title: `${kind === 'product' ? 'Product' : 'Article'} ${i}`,
    text: body,
    checksum: 'sha256:' + (i.toString(16) + String(revision)).padStart(64, '0').slice(-64),
  };
  if (kind === 'product')
    base.json = { price: { amount: 10 + (i % 90) + (revision ? 1 : 0), currency: 'EUR' }, sku: `SKU-${i}` };
  return base;
}
