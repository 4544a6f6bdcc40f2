import { describe, expect, it } from 'vitest';
import { extractItem } from '../../../src/ingest/extract/index.js';
import { CHECKSUM, RECEIVED, extractPage, factOf, factsOf, relsOf, site } from './helpers.js';

describe('JSON-LD (@graph, nested offers, @id references, arrays)', () => {
  const c = extractPage('product.html', 'product', 'https://shop.example/p/oak-lamp');

  it('types and keys the item entity from its own JSON-LD and its url', () => {
    expect(c.primaryEntity).toEqual({ type: 'Product', canonicalKey: 'https://shop.example/p/oak-lamp' });
    expect(c.entities[0]).toMatchObject({
      type: 'Product',
      name: 'Oak Lamp',
      provenanceMethod: 'schema_org',
      importance: 5,
    });
    expect(c.entities[1]).toMatchObject({ type: 'Organization', canonicalKey: 'shop.example', name: 'Acme Shop' });
    expect(c.language).toBe('en-US');
  });

  it('turns the offer into a price with currency, display and validity', () => {
    expect(factOf(c, 'price', 'schema_org')).toMatchObject({
      value: 12.5,
      currency: 'EUR',
      display: '12.50 EUR',
      validFrom: '2025-12-31T23:00:00Z',
      validUntil: '2026-12-31',
      importance: 5,
      freshness: 'frequent',
      confidence: 0.9,
    });
    expect(factOf(c, 'availability', 'schema_org')?.value).toBe('InStock');
    expect(factOf(c, 'availability', 'schema_org')?.freshness).toBe('real_time');
    expect(factOf(c, 'price_valid_until', 'schema_org')?.value).toBe('2026-12-31');
  });

  it('reads identifiers, description (tags stripped), rating and brand', () => {
    expect(factOf(c, 'sku', 'schema_org')?.value).toBe('OL-1');
    expect(factOf(c, 'gtin', 'schema_org')?.value).toBe('4006381333931');
    expect(factOf(c, 'description', 'schema_org')?.value).toBe('A warm oak table lamp.');
    expect(factOf(c, 'rating_value', 'schema_org')).toMatchObject({ value: 4.6, display: '4.6/5' });
    expect(factOf(c, 'review_count', 'schema_org')?.value).toBe(89);
    expect(factOf(c, 'brand', 'schema_org')?.value).toBe('Lumen');
    expect(relsOf(c, 'brand')).toContainEqual({
      from: 'Product:https://shop.example/p/oak-lamp',
      to: 'Brand:lumen',
      provenance: 'schema_org',
    });
    expect(relsOf(c, 'in_category').map((r) => r.to)).toEqual(
      expect.arrayContaining(['DefinedTerm:category/lamps', 'DefinedTerm:category/home']),
    );
  });

  it('resolves the seller through @id and describes it, keyed by its url', () => {
    expect(relsOf(c, 'offered_by')).toContainEqual({
      from: 'Product:https://shop.example/p/oak-lamp',
      to: 'Organization:https://lamptraders.example/',
      provenance: 'schema_org',
    });
    expect(
      factOf(c, 'telephone', 'schema_org', { type: 'Organization', canonicalKey: 'https://lamptraders.example/' })
        ?.value,
    ).toBe('+49 30 1234567');
    // The WebSite node names the site as og:site_name does; og:site_name is read first, as Readability reads it.
    expect(
      factsOf(c, 'site_name', { type: 'Organization', canonicalKey: 'shop.example' }).map((f) => [
        f.value,
        f.provenanceMethod,
      ]),
    ).toEqual([['Acme Shop', 'seo_meta']]);
    expect(relsOf(c, 'part_of')).toEqual([
      { from: 'Product:https://shop.example/p/oak-lamp', to: 'Organization:shop.example', provenance: 'cms_field' },
    ]);
  });

  it('reads definition lists and two-column tables as key/value facts', () => {
    expect(factOf(c, 'material', 'text_extraction')?.value).toBe('Oak');
    expect(factOf(c, 'height', 'text_extraction')?.value).toBe('42 cm');
    expect(factOf(c, 'weight', 'text_extraction')?.value).toBe('1.2 kg');
    expect(factOf(c, 'bulb', 'text_extraction')?.value).toBe('E27');
    expect(factsOf(c, 'property')).toEqual([]);
  });

  it('makes FAQ pairs of question headings and <details>, and templated Q&A from facts', () => {
    expect(c.qa).toContainEqual(
      expect.objectContaining({
        question: 'Does it come with a bulb?',
        answer: 'Yes, a 4 W LED bulb is included.',
        provenanceMethod: 'text_extraction',
      }),
    );
    expect(c.qa).toContainEqual(
      expect.objectContaining({
        question: 'Can I return it?',
        answer: 'Within 30 days.',
        provenanceMethod: 'text_extraction',
      }),
    );
    const cost = c.qa.find((q) => q.question === 'What does Oak Lamp cost?');
    expect(cost?.answer).toBe('Oak Lamp costs 12.50 EUR (InStock).');
    expect(cost?.facts).toEqual([
      { subject: c.primaryEntity, predicate: 'price' },
      { subject: c.primaryEntity, predicate: 'availability' },
    ]);
    expect(cost?.entities).toEqual([c.primaryEntity]);
  });

  it('chunks the main content without navigation or footer, with heading paths and mentions', () => {
    const text = c.chunks.map((ch) => ch.text).join('\n');
    expect(text).not.toContain('Imprint');
    expect(text).not.toContain('Home');
    expect(c.chunks[0]).toMatchObject({ position: 0, headingPath: ['Oak Lamp'] });
    expect(c.chunks[0]!.text).toContain('turned from a single piece of oak');
    expect(c.chunks[0]!.mentions).toContainEqual({ type: 'Brand', canonicalKey: 'lumen' });
    expect(c.chunks.find((ch) => ch.headingPath.join('/') === 'Oak Lamp/Does it come with a bulb?')?.text).toBe(
      'Yes, a 4 W LED bulb is included.\n\nCan I return it?\n\nWithin 30 days.',
    );
  });

  it('fills the source record', () => {
    expect(c.source).toEqual({
      url: 'https://shop.example/p/oak-lamp',
      canonicalUrl: null,
      title: 'Oak Lamp',
      contentType: 'text/html',
      checksum: 'sha256:' + 'a'.repeat(64),
      language: 'en-US',
      lastSeenAt: '2026-02-01T12:00:00Z',
    });
    expect(c.itemKey).toBe('product:product.html');
  });
});

describe('Event', () => {
  const c = extractPage('event.html', 'event', 'https://shop.example/events/jazz');
  it('normalises dates to UTC and links place and organizer', () => {
    expect(c.primaryEntity.type).toBe('Event');
    expect(factOf(c, 'start_date', 'schema_org')?.value).toBe('2026-07-01T18:00:00Z');
    expect(factOf(c, 'end_date', 'schema_org')?.value).toBe('2026-07-01T21:30:00Z');
    expect(factOf(c, 'event_status', 'schema_org')?.value).toBe('EventScheduled');
    expect(factOf(c, 'location', 'schema_org')?.value).toBe('Blue Hall, Hauptstr. 1, 10115 Berlin, DE');
    expect(relsOf(c, 'located_at')).toContainEqual({
      from: 'Event:https://shop.example/events/jazz',
      to: 'Place:blue hall, hauptstr. 1, 10115 berlin, de',
      provenance: 'schema_org',
    });
    expect(
      factOf(c, 'address', 'schema_org', { type: 'Place', canonicalKey: 'blue hall, hauptstr. 1, 10115 berlin, de' })
        ?.value,
    ).toBe('Hauptstr. 1, 10115 Berlin, DE');
    expect(relsOf(c, 'organized_by')).toContainEqual({
      from: 'Event:https://shop.example/events/jazz',
      to: 'Organization:https://jazz.example/',
      provenance: 'schema_org',
    });
    expect(factOf(c, 'price', 'schema_org')).toMatchObject({
      value: 25,
      currency: 'EUR',
      display: '25.00 EUR',
      validFrom: '2026-05-01',
    });
    expect(c.language).toBe('de');
  });
  it('templates "When is" and "Where is" questions; a time quotes its local wall time (the display)', () => {
    expect(c.qa.find((q) => q.question === 'When is Jazz Night?')?.answer).toBe(
      'Jazz Night starts 2026-07-01T20:00:00+02:00 and ends 2026-07-01T23:30:00+02:00.',
    );
    expect(c.qa.find((q) => q.question === 'Where is Jazz Night?')?.answer).toBe(
      'Jazz Night is at Blue Hall, Hauptstr. 1, 10115 Berlin, DE.',
    );
  });
});

describe('LocalBusiness', () => {
  const c = extractPage('local-business.html', 'location', 'https://shop.example/cafe');
  it('reads opening hours (displayed with the days in full), address, geo and telephone', () => {
    expect(c.primaryEntity.type).toBe('CafeOrCoffeeShop');
    expect(factOf(c, 'opening_hours', 'schema_org')).toMatchObject({
      value: 'Mo,Tu,We,Th,Fr 08:00-18:00; Sa 09:00-14:00',
      display: 'Monday, Tuesday, Wednesday, Thursday, Friday 08:00-18:00; Saturday 09:00-14:00',
      importance: 5,
      freshness: 'seasonal',
    });
    expect(factOf(c, 'address', 'schema_org')?.value).toBe('Lindenstr. 5, 04109 Leipzig, DE');
    expect(factOf(c, 'geo', 'schema_org')).toMatchObject({
      value: { latitude: 51.34, longitude: 12.37 },
      display: '51.34, 12.37',
    });
    expect(factOf(c, 'telephone', 'schema_org')?.value).toBe('+49 341 000000');
    expect(factOf(c, 'price_range', 'schema_org')?.value).toBe('€€');
    expect(c.qa.find((q) => q.question === 'When is Café Linde open?')?.answer).toBe(
      'Café Linde is open Monday, Tuesday, Wednesday, Thursday, Friday 08:00-18:00; Saturday 09:00-14:00.',
    );
    expect(c.language).toBe('en');
  });
});

describe('microdata', () => {
  const c = extractPage('microdata.html', 'product', 'https://shop.example/p/chaise-bleue');
  it('reads itemscope/itemprop, nested items and content/href values', () => {
    expect(c.primaryEntity).toEqual({ type: 'Product', canonicalKey: 'https://shop.example/p/chaise-bleue' });
    expect(c.entities[0]!.name).toBe('Chaise Bleue');
    expect(factOf(c, 'price', 'schema_org')).toMatchObject({
      value: 89,
      currency: 'EUR',
      display: '89.00 EUR',
      confidence: 0.85,
    });
    expect(factOf(c, 'availability', 'schema_org')?.value).toBe('OutOfStock');
    expect(factOf(c, 'url', 'schema_org')?.value).toBe('https://shop.example/p/chaise-bleue');
    expect(factOf(c, 'image', 'schema_org')?.value).toBe('https://shop.example/img/chaise.jpg');
    expect(factOf(c, 'rating_value', 'schema_org')?.value).toBe(4.2);
    expect(factOf(c, 'review_count', 'schema_org')?.value).toBe(17);
    expect(relsOf(c, 'brand')).toContainEqual({
      from: 'Product:https://shop.example/p/chaise-bleue',
      to: 'Brand:atelier nord',
      provenance: 'schema_org',
    });
    expect(c.language).toBe('fr');
  });
});

describe('FAQPage, OpenGraph and broken JSON-LD', () => {
  const c = extractPage('faq.html', 'faq', 'https://shop.example/faq');
  it('repairs a block that is not JSON (here cut short) with a warning, and still extracts the rest', () => {
    expect(c.warnings).toHaveLength(1);
    expect(c.warnings[0]).toMatch(/^json_ld\.repaired: block 2 is not JSON \(.+\); read as repaired$/);
    expect(c.entities.map((e) => e.name)).toContain('Broken');
    expect(c.primaryEntity.type).toBe('FAQPage');
    expect(c.qa).toContainEqual(
      expect.objectContaining({
        question: 'How long does shipping take?',
        answer: 'Two to three working days.',
        provenanceMethod: 'schema_org',
        confidence: 0.9,
      }),
    );
    expect(c.qa).toContainEqual(
      expect.objectContaining({ question: 'Do you ship abroad?', answer: 'Yes, within the EU.' }),
    );
    expect(c.qa).toContainEqual(
      expect.objectContaining({
        question: 'What does shipping cost?',
        answer: 'Shipping is free above 50 EUR.',
        provenanceMethod: 'text_extraction',
      }),
    );
  });
  it('repairs what CMS templates break (line breaks in strings, trailing commas, comments, stray quotes), skips what cannot be repaired', () => {
    const page = (block: string) =>
      extractItem(
        {
          type: 'post',
          id: 'p',
          url: 'https://shop.example/p',
          html: `<html><head><title>Lantern walk</title><script type="application/ld+json">${block}</script></head><body><p>Text.</p></body></html>`,
          checksum: CHECKSUM,
        },
        site,
        { receivedAt: RECEIVED },
      );
    const repaired = page(
      '{"@context": "https://schema.org", "@type": "Article", // the post\n "headline": "Ten years of the\nlantern walk", "author": {"@type": "Person", "name": "Ola "the walker" Berg",},}',
    );
    expect(repaired.warnings).toEqual([expect.stringMatching(/^json_ld\.repaired: block 1 /)]);
    expect(repaired.primaryEntity.type).toBe('Article');
    expect(factOf(repaired, 'headline', 'schema_org')?.value).toBe('Ten years of the lantern walk');
    // Two objects side by side are read as both.
    const pasted = page(
      '{"@type": "Article", "headline": "Ten years of the lantern walk"} {"@type": "Organization", "name": "Lantern Club"}',
    );
    expect(pasted.warnings).toEqual([expect.stringMatching(/^json_ld\.repaired: block 1 /)]);
    expect(factOf(pasted, 'headline', 'schema_org')?.value).toBe('Ten years of the lantern walk');
    expect(pasted.entities.map((e) => e.name)).toContain('Lantern Club');
    const skipped = page('{"@type": "Article", "headline": "A"} <<< {{{ :::');
    expect(skipped.warnings).toEqual([expect.stringMatching(/^json_ld\.invalid: block 1 skipped: /)]);
    expect(factOf(skipped, 'headline', 'schema_org')).toBeUndefined();
  });

  it('reads OpenGraph, article and author meta as seo_meta facts', () => {
    expect(c.entities[0]!.name).toBe('Shipping questions');
    expect(factOf(c, 'name', 'seo_meta')?.value).toBe('Shipping questions');
    expect(factOf(c, 'html_title', 'seo_meta')?.value).toBe('Shipping FAQ');
    expect(factOf(c, 'description', 'seo_meta')?.value).toBe('Answers about shipping.');
    expect(factOf(c, 'date_published', 'seo_meta')?.value).toBe('2025-03-01T09:00:00Z');
    expect(factOf(c, 'author', 'seo_meta')?.value).toBe('Jane Doe');
    expect(relsOf(c, 'authored_by')).toEqual([
      { from: 'FAQPage:https://shop.example/faq', to: 'Person:jane doe', provenance: 'seo_meta' },
    ]);
    expect(c.qa.find((q) => q.question === 'Who wrote Shipping questions?')?.answer).toBe(
      'Shipping questions was written by Jane Doe.',
    );
  });
});

describe('offers of product variants', () => {
  const product = (own: Record<string, string>) => {
    const ld = {
      '@context': 'https://schema.org',
      '@type': 'Product',
      name: 'Ceramic Mug',
      ...own,
      offers: [
        { '@type': 'Offer', sku: 'MUG-01-BLUE', gtin13: '4006381333931', price: '28.00', priceCurrency: 'USD' },
        { '@type': 'Offer', sku: 'MUG-01-GREEN', gtin14: '04006381333948', price: '28.00', priceCurrency: 'USD' },
      ],
    };
    return extractItem(
      {
        type: 'product',
        id: 'mug',
        url: 'https://shop.example/p/mug',
        html: `<html><head><title>Ceramic Mug</title><script type="application/ld+json">${JSON.stringify(ld)}</script></head><body><h1>Ceramic Mug</h1></body></html>`,
        checksum: CHECKSUM,
      },
      site,
      { receivedAt: RECEIVED },
    );
  };

  it("bug: the variants' skus were one candidate beside the product's own sku, which could lose; they are offer_sku now", () => {
    const c = product({ sku: 'MUG-01', gtin13: '4006381333931' });
    expect(factsOf(c, 'sku').map((f) => f.value)).toEqual(['MUG-01']);
    expect(factOf(c, 'offer_sku', 'schema_org')?.value).toEqual({ values: ['MUG-01-BLUE', 'MUG-01-GREEN'] });
    // The variant whose gtin is the product's own adds nothing; the other's is an offer_gtin.
    expect(factsOf(c, 'gtin').map((f) => f.value)).toEqual(['4006381333931']);
    expect(factOf(c, 'offer_gtin', 'schema_org')?.value).toBe('04006381333948');
  });

  it("a product that states no identifier of its own takes its offers'", () => {
    const c = product({});
    expect(factOf(c, 'sku', 'schema_org')?.value).toEqual({ values: ['MUG-01-BLUE', 'MUG-01-GREEN'] });
    expect(factOf(c, 'offer_sku', 'schema_org')).toBeUndefined();
  });
});

describe('a thing whose main page is the item', () => {
  const page = (recipeMainPage: unknown) => {
    const graph = {
      '@context': 'https://schema.org',
      '@graph': [
        {
          '@type': 'Article',
          '@id': 'https://shop.example/lemon-cake/#article',
          headline: 'Lemon cake',
          author: { '@id': 'https://shop.example/#/schema/person/1' },
        },
        { '@type': 'Person', '@id': 'https://shop.example/#/schema/person/1', name: 'Rosa Field' },
        {
          '@type': 'Recipe',
          name: 'Lemon drizzle cake',
          recipeIngredient: ['4 eggs', '1 lemon'],
          mainEntityOfPage: recipeMainPage,
        },
      ],
    };
    return extractItem(
      {
        type: 'post',
        id: 'lemon',
        url: 'https://shop.example/lemon-cake/',
        html: `<html><head><title>Lemon cake</title><script type="application/ld+json">${JSON.stringify(graph)}</script></head><body><h1>Lemon cake</h1></body></html>`,
        checksum: CHECKSUM,
      },
      site,
      { receivedAt: RECEIVED },
    );
  };

  it("bug: a recipe plugin's Recipe beside the page's Article was an entity linked to nothing; it is the item's main_entity", () => {
    const byId = page('https://shop.example/lemon-cake/#article');
    expect(byId.primaryEntity.type).toBe('Article');
    expect(relsOf(byId, 'main_entity')).toEqual([
      { from: 'Article:https://shop.example/lemon-cake', to: 'Recipe:lemon drizzle cake', provenance: 'schema_org' },
    ]);
    expect(relsOf(page({ '@id': 'https://shop.example/lemon-cake/' }), 'main_entity').map((r) => r.to)).toEqual([
      'Recipe:lemon drizzle cake',
    ]);
  });

  it('not when its main page is another page, or it names none', () => {
    expect(relsOf(page('https://shop.example/other-cake/'), 'main_entity')).toEqual([]);
    expect(relsOf(page(undefined), 'main_entity')).toEqual([]);
  });
});

describe("a video beside the page, and a job posting's title", () => {
  const item = (type: string, ld: object, title: string) =>
    extractItem(
      {
        type,
        id: 'x',
        url: 'https://shop.example/x',
        html: `<html><head><title>${title}</title><script type="application/ld+json">${JSON.stringify({ '@context': 'https://schema.org', ...ld })}</script></head><body><p>Text.</p></body></html>`,
        checksum: CHECKSUM,
      },
      site,
      { receivedAt: RECEIVED },
    );

  it('bug: a page whose only node is a VideoObject had the video as an entity linked to nothing; the page has it as its video', () => {
    const c = item(
      'page',
      { '@type': 'VideoObject', name: 'How to sharpen a chisel', duration: 'PT5M12S', uploadDate: '2024-01-10' },
      'How to sharpen a chisel - Workshop TV',
    );
    expect(c.primaryEntity.type).toBe('WebPage');
    expect(relsOf(c, 'video')).toEqual([
      { from: 'WebPage:https://shop.example/x', to: 'VideoObject:how to sharpen a chisel', provenance: 'schema_org' },
    ]);
    expect(
      relsOf(item('page', { '@type': 'AudioObject', name: 'Episode 12' }, 'Episode 12'), 'audio').map((r) => r.to),
    ).toEqual(['AudioObject:episode 12']);
  });

  it('bug: a JobPosting, which names itself in "title", took the <title> with the site\'s part as its name', () => {
    const c = item(
      'page',
      { '@type': 'JobPosting', title: 'Backend Engineer', datePosted: '2024-05-01' },
      'Backend Engineer - Careers at Loop',
    );
    expect(c.entities[0]).toMatchObject({ type: 'JobPosting', name: 'Backend Engineer' });
  });
});

describe("dates the item's page states", () => {
  const page = (article: object, webPage: object) => {
    const graph = {
      '@context': 'https://schema.org',
      '@graph': [
        {
          '@type': 'Article',
          '@id': 'https://shop.example/p/#article',
          isPartOf: { '@id': 'https://shop.example/p/' },
          headline: 'Ten years of the lantern walk',
          ...article,
        },
        {
          '@type': 'WebPage',
          '@id': 'https://shop.example/p/',
          url: 'https://shop.example/p/',
          name: 'Lantern walk',
          ...webPage,
        },
      ],
    };
    return extractItem(
      {
        type: 'post',
        id: 'p',
        url: 'https://shop.example/p/',
        html: `<html><head><title>Lantern walk</title><script type="application/ld+json">${JSON.stringify(graph)}</script></head><body><p>Text.</p></body></html>`,
        checksum: CHECKSUM,
      },
      site,
      { receivedAt: RECEIVED },
    );
  };

  it('bug: Yoast states the dates on the WebPage and not on its Article, and they were dropped; the item has them, a little below its own', () => {
    const c = page({}, { datePublished: '2024-03-05T10:00:00+00:00', dateModified: '2024-03-06T11:00:00+01:00' });
    expect(factOf(c, 'date_published', 'schema_org')).toMatchObject({
      value: '2024-03-05T10:00:00Z',
      confidence: 0.85,
    });
    expect(factOf(c, 'date_modified', 'schema_org')).toMatchObject({
      value: '2024-03-06T10:00:00Z',
      display: '2024-03-06T11:00:00+01:00',
    });
  });

  it("the Article's own date stays the only one; another page's dates are not the item's", () => {
    expect(
      factsOf(page({ datePublished: '2024-01-01' }, { datePublished: '2024-03-05' }), 'date_published').map(
        (f) => f.value,
      ),
    ).toEqual(['2024-01-01']);
    const other = {
      '@context': 'https://schema.org',
      '@graph': [
        { '@type': 'Article', headline: 'Lantern walk' },
        { '@type': 'WebPage', url: 'https://shop.example/other/', datePublished: '2024-03-05' },
      ],
    };
    const c = extractItem(
      {
        type: 'post',
        id: 'p',
        url: 'https://shop.example/p/',
        html: `<html><head><title>Lantern walk</title><script type="application/ld+json">${JSON.stringify(other)}</script></head><body><p>Text.</p></body></html>`,
        checksum: CHECKSUM,
      },
      site,
      { receivedAt: RECEIVED },
    );
    expect(factsOf(c, 'date_published')).toEqual([]);
  });
});

describe('an image or a logo given by reference', () => {
  it('bug: Yoast\'s {"@id": ".../#primaryimage"} became the image fact\'s value; it is the ImageObject\'s url', () => {
    const graph = {
      '@context': 'https://schema.org',
      '@graph': [
        {
          '@type': 'Article',
          '@id': 'https://shop.example/p/#article',
          headline: 'Owls at night',
          image: { '@id': 'https://shop.example/p/#primaryimage' },
          publisher: { '@id': 'https://shop.example/#organization' },
        },
        {
          '@type': 'ImageObject',
          '@id': 'https://shop.example/p/#primaryimage',
          url: 'https://shop.example/img/owl.jpg',
          width: 1200,
          caption: 'An owl',
        },
        {
          '@type': 'Organization',
          '@id': 'https://shop.example/#organization',
          name: 'Acme Shop',
          logo: { '@id': 'https://shop.example/#logo' },
        },
        {
          '@type': 'ImageObject',
          '@id': 'https://shop.example/#logo',
          contentUrl: 'https://shop.example/img/logo.png',
        },
      ],
    };
    const c = extractItem(
      {
        type: 'post',
        id: 'p',
        url: 'https://shop.example/p/',
        html: `<html><head><title>Owls at night</title><script type="application/ld+json">${JSON.stringify(graph)}</script></head><body><p>Text.</p></body></html>`,
        checksum: CHECKSUM,
      },
      site,
      { receivedAt: RECEIVED },
    );
    expect(factsOf(c, 'image').map((f) => f.value)).toEqual(['https://shop.example/img/owl.jpg']);
    expect(factsOf(c, 'logo', { type: 'Organization', canonicalKey: 'shop.example' }).map((f) => f.value)).toEqual([
      'https://shop.example/img/logo.png',
    ]);
  });
});
