import { describe, expect, it } from 'vitest';
import type { IngestItem } from '../../../src/platform/contract/ingest-item.js';
import type { ItemContribution } from '../../../src/ingest/extract/contribution.js';
import { extractItem } from '../../../src/ingest/extract/index.js';
import { CHECKSUM, extractPage, factOf, factsOf, RECEIVED, relsOf, site } from './helpers.js';

/** Issue 18: what the structured data of a page states reaches the contribution. */

function entityKeys(c: ItemContribution, type: string): string[] {
  return c.entities.filter((e) => e.type === type).map((e) => e.canonicalKey);
}

describe('JSON-LD: several values, followed mainEntity, identifiers, reviews, parts (book-page.html)', () => {
  const c = extractPage('book-page.html', 'product', 'https://shop.example/books/quiet-orchard');
  const ref = (type: string, key: string) => ({ type, canonicalKey: key });

  it('follows the WebPage mainEntity: the page is about the book, and the page node makes no entity', () => {
    expect(c.primaryEntity).toEqual({ type: 'Book', canonicalKey: 'https://shop.example/books/quiet-orchard' });
    expect(c.entities[0]?.name).toBe('The Quiet Orchard');
    expect(c.entities.map((e) => e.name)).not.toContain('Book page');
  });

  it('bug: a property with several values kept only the first; now one fact {"values"} in source order without duplicates, display joined with ", "', () => {
    expect(factOf(c, 'genre', 'schema_org')).toMatchObject({
      value: { values: ['Fiction', 'Nature writing'] },
      display: 'Fiction, Nature writing',
    });
    expect(factOf(c, 'image', 'schema_org')).toMatchObject({
      value: { values: ['https://shop.example/img/orchard-front.jpg', 'https://shop.example/img/orchard-back.jpg'] },
    });
    expect(factOf(c, 'author', 'schema_org')).toMatchObject({
      value: { values: ['Mara Lind', 'Olaf Berg'] },
      display: 'Mara Lind, Olaf Berg',
    });
    expect(factsOf(c, 'genre')).toHaveLength(1);
  });

  it('bug: sameAs was dropped; now same_as on the item and on the author (keyed by its first sameAs), duplicates dropped', () => {
    expect(factOf(c, 'same_as', 'schema_org')?.value).toBe('https://books.example/works/quiet-orchard');
    expect(factOf(c, 'same_as', 'schema_org', ref('Person', 'https://social.example/@mara'))).toMatchObject({
      value: { values: ['https://social.example/@mara', 'https://wiki.example/Mara_Lind'] },
      display: 'https://social.example/@mara, https://wiki.example/Mara_Lind',
    });
  });

  it('bug: identifier, isbn, gtin and mpn were dropped; now each is a fact (a PropertyValue identifier by its value)', () => {
    expect(factOf(c, 'isbn', 'schema_org')?.value).toBe('978-3-16-148410-0');
    expect(factOf(c, 'gtin', 'schema_org')?.value).toBe('9783161484100');
    expect(factOf(c, 'mpn', 'schema_org')?.value).toBe('QO-2026');
    expect(factOf(c, 'identifier', 'schema_org')?.value).toEqual({ values: ['123456789', 'urn:lib:orchard-1'] });
  });

  it('bug: interactionStatistic and the offer url were dropped; now <action>_count facts and offer_url', () => {
    expect(factOf(c, 'like_count', 'schema_org')?.value).toBe(412);
    expect(factOf(c, 'comment_count', 'schema_org')?.value).toBe(17);
    expect(factOf(c, 'offer_url', 'schema_org')?.value).toBe('https://shop.example/cart/add/quiet-orchard');
    expect(factOf(c, 'price', 'schema_org')).toMatchObject({ value: 18, currency: 'EUR' });
  });

  it('bug: reviews were dropped; now each review is a Review entity that reviews the item, with rating, body and author', () => {
    const ines = ref('Review', 'review by ines kahl of https://shop.example/books/quiet-orchard');
    const pat = ref('Review', 'too slow for me of https://shop.example/books/quiet-orchard');
    expect(entityKeys(c, 'Review').sort()).toEqual([ines.canonicalKey, pat.canonicalKey]);
    expect(relsOf(c, 'reviews')).toEqual([
      {
        from: `Review:${ines.canonicalKey}`,
        to: 'Book:https://shop.example/books/quiet-orchard',
        provenance: 'schema_org',
      },
      {
        from: `Review:${pat.canonicalKey}`,
        to: 'Book:https://shop.example/books/quiet-orchard',
        provenance: 'schema_org',
      },
    ]);
    expect(factOf(c, 'rating_value', 'schema_org', ines)).toMatchObject({ value: 5, display: '5/5' });
    expect(factOf(c, 'review_body', 'schema_org', ines)?.value).toBe('Gentle and exact.');
    expect(factOf(c, 'rating_value', 'schema_org', pat)?.value).toBe(2);
    expect(relsOf(c, 'authored_by')).toContainEqual({
      from: `Review:${pat.canonicalKey}`,
      to: 'Person:pat roe',
      provenance: 'schema_org',
    });
    expect(factOf(c, 'review', 'schema_org')?.value).toEqual({ values: ['Review by Ines Kahl', 'Too slow for me'] });
  });

  it('bug: hasPart was dropped; now has_part relationships and one fact naming the parts', () => {
    expect(relsOf(c, 'has_part').map((r) => r.to)).toEqual(['Chapter:blossom', 'Chapter:windfall']);
    expect(factOf(c, 'has_part', 'schema_org')?.value).toEqual({ values: ['Blossom', 'Windfall'] });
  });

  it('emits no warnings', () => {
    expect(c.warnings).toEqual([]);
  });
});

describe('ItemList members, subEvent, workPerformed, track, Event and Place identity (concerts.html)', () => {
  const c = extractPage('concerts.html', 'page', 'https://shop.example/tour');

  it('bug: ItemList members were dropped; now the page lists each member in position order', () => {
    expect(relsOf(c, 'lists').map((r) => r.to)).toEqual([
      'TheaterEvent:https://shop.example/events/winter-play',
      'MusicEvent:the larks live @ 2026-05-01T18:00:00Z @ old mill, mühlgasse 9, wien',
      'MusicEvent:the larks live @ 2026-05-02T18:00:00Z @ old mill, mühlweg 3, hamburg',
    ]);
    expect(factOf(c, 'list_item', 'schema_org')?.value).toEqual({ values: ['The Larks live', 'Winter Play'] });
  });

  it('bug: two concerts with one name became one entity with one date; an Event without url is keyed by name, start date and place', () => {
    const first = {
      type: 'MusicEvent',
      canonicalKey: 'the larks live @ 2026-05-01T18:00:00Z @ old mill, mühlgasse 9, wien',
    };
    const second = {
      type: 'MusicEvent',
      canonicalKey: 'the larks live @ 2026-05-02T18:00:00Z @ old mill, mühlweg 3, hamburg',
    };
    expect(factOf(c, 'start_date', 'schema_org', first)?.value).toBe('2026-05-01T18:00:00Z');
    expect(factOf(c, 'start_date', 'schema_org', second)?.value).toBe('2026-05-02T18:00:00Z');
    expect(entityKeys(c, 'TheaterEvent')).toEqual([
      'https://shop.example/events/winter-play',
      'matinee @ 2026-12-01T15:00:00Z',
    ]);
  });

  it('a Place subtype without url is keyed by name and address: two venues named Old Mill stay two', () => {
    expect(entityKeys(c, 'MusicVenue')).toEqual(['old mill, mühlgasse 9, wien', 'old mill, mühlweg 3, hamburg']);
    expect(relsOf(c, 'located_at')).toContainEqual({
      from: 'MusicEvent:the larks live @ 2026-05-02T18:00:00Z @ old mill, mühlweg 3, hamburg',
      to: 'MusicVenue:old mill, mühlweg 3, hamburg',
      provenance: 'schema_org',
    });
  });

  it('bug: subEvent, workPerformed and track were dropped; now relationships and facts', () => {
    expect(relsOf(c, 'has_sub_event')).toEqual([
      {
        from: 'TheaterEvent:https://shop.example/events/winter-play',
        to: 'TheaterEvent:matinee @ 2026-12-01T15:00:00Z',
        provenance: 'schema_org',
      },
    ]);
    expect(relsOf(c, 'performs_work')).toEqual([
      {
        from: 'MusicEvent:the larks live @ 2026-05-01T18:00:00Z @ old mill, mühlgasse 9, wien',
        to: 'MusicComposition:lark ascending',
        provenance: 'schema_org',
      },
    ]);
    expect(relsOf(c, 'has_track').map((r) => r.to)).toEqual(['MusicRecording:morning', 'MusicRecording:noon']);
    expect(factOf(c, 'track', 'schema_org', { type: 'MusicAlbum', canonicalKey: 'larks at dawn' })?.value).toEqual({
      values: ['Morning', 'Noon'],
    });
  });
});

describe('Microdata itemref (itemref.html)', () => {
  const c = extractPage('itemref.html', 'product', 'https://shop.example/p/linen-shirt');

  it('bug: properties referenced by itemref were dropped; now they belong to the item', () => {
    expect(factOf(c, 'sku', 'schema_org')?.value).toBe('LS-7');
    expect(factOf(c, 'brand', 'schema_org')?.value).toBe('Flax & Co');
    expect(relsOf(c, 'brand')).toEqual([
      { from: 'Product:https://shop.example/p/linen-shirt', to: 'Brand:flax & co', provenance: 'schema_org' },
    ]);
    expect(factOf(c, 'same_as', 'schema_org')?.value).toBe('https://brands.example/flax/linen-shirt');
  });

  it('a repeated itemprop is one fact with every value, duplicates dropped', () => {
    expect(factOf(c, 'color', 'schema_org')).toMatchObject({
      value: { values: ['white', 'sand'] },
      display: 'white, sand',
    });
  });
});

describe('Head metadata: repeated tags, OpenGraph namespaces, declared prefixes, Dublin Core (head-meta.html)', () => {
  const c = extractPage('head-meta.html', 'page', 'https://shop.example/guides/mosses');
  const meta = (predicate: string) => factOf(c, predicate, 'seo_meta')?.value;

  it('og:type types a plain page (article -> Article)', () => {
    expect(c.primaryEntity).toEqual({ type: 'Article', canonicalKey: 'https://shop.example/guides/mosses' });
  });

  it('bug: a repeated OpenGraph tag kept only the last; now every og:image and article:tag, duplicates dropped', () => {
    expect(factOf(c, 'image', 'seo_meta')).toMatchObject({
      value: { values: ['https://shop.example/img/moss-1.jpg', 'https://shop.example/img/moss-2.jpg'] },
      display: 'https://shop.example/img/moss-1.jpg, https://shop.example/img/moss-2.jpg',
    });
    expect(relsOf(c, 'tagged').map((r) => r.to)).toEqual(['DefinedTerm:tag/botany', 'DefinedTerm:tag/mosses']);
  });

  it('bug: og:url, og:locale, twitter:creator and twitter:site were ignored', () => {
    expect(meta('url')).toBe('https://shop.example/guides/mosses');
    expect(meta('locale')).toBe('en_GB');
    expect(meta('locale_alternate')).toEqual({ values: ['de_DE', 'fr_FR'] });
    expect(meta('twitter_creator')).toBe('@adamoss');
    expect(factOf(c, 'twitter_site', 'seo_meta', { type: 'Organization', canonicalKey: 'shop.example' })?.value).toBe(
      '@acmeshop',
    );
  });

  it('bug: prefixes declared in <html prefix> were ignored; shop: (product) and bk: (book) read as their namespaces', () => {
    expect(meta('sku')).toBe('FG-MOSS');
    expect(meta('brand')).toBe('Greenleaf Press');
    expect(meta('availability')).toBe('InStock');
    expect(factOf(c, 'price', 'seo_meta')).toMatchObject({ value: 24.9, currency: 'EUR', display: '24.90 EUR' });
    expect(meta('isbn')).toBe('978-0-00-000000-2');
  });

  it('bug: profile:, music:, video: and book: keys were ignored', () => {
    expect(meta('first_name')).toBe('Ada');
    expect(meta('duration')).toBe('245');
    expect(
      factsOf(c, 'release_date')
        .map((f) => f.value)
        .sort(),
    ).toEqual(['2025-09-15', '2025-10-01']);
  });

  it('bug: Dublin Core read four elements; now all fifteen, DC.* and DCTERMS.* spellings and <link rel="DCTERMS.*">', () => {
    expect(factOf(c, 'name', 'seo_meta')?.value).toBe('Field Guide to Mosses');
    expect(factOf(c, 'author', 'seo_meta')?.value).toBe('Ada Moss');
    expect(meta('subject')).toEqual({ values: ['Bryophytes', 'Field guides'] });
    expect(meta('description')).toBe('How to tell forty common mosses apart in the field.');
    expect(meta('publisher')).toBe('Greenleaf Press');
    expect(factOf(c, 'contributor', 'seo_meta')).toMatchObject({
      value: { values: ['Ben Lichen', 'Cy Fern'] },
      display: 'Ben Lichen, Cy Fern',
    });
    expect(meta('date_published')).toBe('2025-09-15');
    expect(meta('dc_type')).toBe('Text');
    expect(meta('format')).toBe('text/html');
    expect(meta('identifier')).toBe('urn:isbn:9780000000002');
    expect(meta('source')).toBe('Greenleaf field notes 2024');
    expect(meta('in_language')).toBe('en');
    expect(meta('relation')).toBe('https://shop.example/guides/lichens');
    expect(meta('coverage')).toBe('Northern Europe');
    expect(meta('rights')).toBe('CC BY 4.0');
    expect(meta('date_modified')).toBe('2025-11-02');
    expect(meta('date_created')).toBe('2025-01-20');
    expect(meta('is_part_of')).toBe('https://shop.example/guides/');
    expect(meta('license')).toBe('https://creativecommons.org/licenses/by/4.0/');
    expect(c.warnings).toEqual([]);
  });
});

describe('microformats2: h-entry, h-card, h-event, h-product, h-review with implied properties (microformats.html)', () => {
  const c = extractPage('microformats.html', 'post', 'https://shop.example/notes/ridge');
  const mf = (predicate: string, subject = c.primaryEntity) => factOf(c, predicate, 'schema_org', subject)?.value;

  it('bug: microformats2 was not parsed; the h-entry whose u-url is the item describes it', () => {
    expect(c.primaryEntity).toEqual({ type: 'BlogPosting', canonicalKey: 'https://shop.example/notes/ridge' });
    expect(mf('author')).toBe('Kim Vale');
    expect(relsOf(c, 'authored_by')).toContainEqual({
      from: 'BlogPosting:https://shop.example/notes/ridge',
      to: 'Person:https://shop.example/people/kim',
      provenance: 'schema_org',
    });
    expect(mf('url', { type: 'Person', canonicalKey: 'https://shop.example/people/kim' })).toBe(
      'https://shop.example/people/kim',
    );
    expect(mf('date_published')).toBe('2026-03-04T09:30:00Z');
    expect(mf('description')).toBe('A day on the ridge path from the old quarry to the beacon.');
    expect(mf('keywords')).toEqual({ values: ['walking', 'hills'] });
  });

  it('h-event: two events of one name on two dates stay two, the location h-card is a Place', () => {
    expect(
      mf('start_date', { type: 'Event', canonicalKey: 'ridge walk @ 2026-04-11T08:00:00Z @ quarry car park, hebden' }),
    ).toBe('2026-04-11T08:00:00Z');
    expect(mf('start_date', { type: 'Event', canonicalKey: 'ridge walk @ 2026-05-09T08:00:00Z' })).toBe(
      '2026-05-09T08:00:00Z',
    );
    expect(relsOf(c, 'located_at')).toEqual([
      {
        from: 'Event:ridge walk @ 2026-04-11T08:00:00Z @ quarry car park, hebden',
        to: 'Place:quarry car park, hebden',
        provenance: 'schema_org',
      },
    ]);
  });

  it('h-product with implied photo, price and brand, and its nested h-review', () => {
    const product = { type: 'Product', canonicalKey: 'ridge map' };
    expect(mf('image', product)).toBe('https://shop.example/img/map.jpg');
    expect(factOf(c, 'price', 'schema_org', product)?.value).toBe(7.5);
    expect(mf('brand', product)).toBe('Fell Maps');
    const review = { type: 'Review', canonicalKey: 'review by lee moor of ridge map' };
    expect(factOf(c, 'rating_value', 'schema_org', review)).toMatchObject({ value: 4, display: '4/5' });
    expect(mf('description', review)).toBe('Clear and tough.');
    expect(relsOf(c, 'reviews')).toEqual([
      { from: 'Review:review by lee moor of ridge map', to: 'Product:ridge map', provenance: 'schema_org' },
    ]);
  });

  it('an h-card whose name is its org is an Organization; mailto: is stripped from its email', () => {
    const org = { type: 'Organization', canonicalKey: 'https://fellmaps.example/' };
    expect(mf('email', org)).toBe('hi@fellmaps.example');
    expect(mf('url', org)).toBe('https://fellmaps.example/');
    expect(c.warnings).toEqual([]);
  });
});

describe('RDFa Lite / RDFa 1.1 in the body: vocab, typeof, property, resource, prefix (rdfa.html)', () => {
  const c = extractPage('rdfa.html', 'event', 'https://shop.example/events/harbour-lights');
  const rdfa = (predicate: string, subject = c.primaryEntity) => factOf(c, predicate, 'schema_org', subject)?.value;

  it('bug: RDFa in the body was not parsed; the typeof node whose resource is the item url describes it', () => {
    expect(c.primaryEntity).toEqual({ type: 'MusicEvent', canonicalKey: 'https://shop.example/events/harbour-lights' });
    expect(rdfa('start_date')).toBe('2026-08-14T19:30:00Z');
    expect(rdfa('description')).toBe('An open-air evening of brass and strings at the end of the pier.');
    expect(rdfa('image')).toEqual({
      values: ['https://shop.example/img/pier.jpg', 'https://shop.example/img/brass.jpg'],
    });
  });

  it('nested typeof under a property: location, performers and the offer (content and href values)', () => {
    expect(rdfa('location')).toBe('Pier Hall, 1 Quay Road, Whitby');
    expect(relsOf(c, 'located_at')).toEqual([
      {
        from: 'MusicEvent:https://shop.example/events/harbour-lights',
        to: 'MusicVenue:pier hall, 1 quay road, whitby',
        provenance: 'schema_org',
      },
    ]);
    expect(rdfa('performer')).toEqual({ values: ['The Quay Brass', 'Ria Sand'] });
    expect(rdfa('same_as', { type: 'MusicGroup', canonicalKey: 'https://music.example/quay-brass' })).toBe(
      'https://music.example/quay-brass',
    );
    expect(factOf(c, 'price', 'schema_org')).toMatchObject({ value: 15, currency: 'GBP', display: '15.00 GBP' });
    expect(rdfa('availability')).toBe('InStock');
  });

  it('a prefix declared on an element (s: http://schema.org/) expands its CURIEs', () => {
    expect(rdfa('url', { type: 'Organization', canonicalKey: 'https://whitbymusic.example/' })).toBe(
      'https://whitbymusic.example/',
    );
    expect(c.warnings).toEqual([]);
  });
});

describe('RDFa links that name a person or an organization (rdfa-links.html)', () => {
  const c = extractPage('rdfa-links.html', 'post', 'https://gazette.example/news/quay-repairs');

  it('bug: <a property="author" href> named nobody (its object is the page alone); now the person of the link text, keyed by the page', () => {
    expect(c.entities.find((e) => e.canonicalKey === 'https://gazette.example/staff/ana-lind')).toMatchObject({
      type: 'Person',
      name: 'Ana Lind',
    });
  });

  it('bug: a typed link (typeof with href) was a thing without its page; the href is its IRI, as RDFa 1.1 reads it', () => {
    expect(entityKeys(c, 'Person').sort()).toEqual([
      'https://gazette.example/staff/ana-lind',
      'https://gazette.example/staff/per-holm',
    ]);
    expect(entityKeys(c, 'Organization')).toContain('https://harbourtrust.example/');
    expect(factOf(c, 'author', 'schema_org')?.value).toEqual({ values: ['Ana Lind', 'Per Holm'] });
    // A thing identified by its page and stating no url: the page is its url fact, so the node says it.
    expect(
      factOf(c, 'url', 'schema_org', { type: 'Person', canonicalKey: 'https://gazette.example/staff/per-holm' })?.value,
    ).toBe('https://gazette.example/staff/per-holm');
  });
});

describe('microformats2 properties added', () => {
  const page = (body: string) =>
    extractItem(
      {
        type: 'page',
        id: 'p',
        url: 'https://n.example/p',
        html: `<html><head><title>A note on owls</title></head><body>${body}</body></html>`,
        checksum: CHECKSUM,
      },
      site,
      { receivedAt: RECEIVED },
    );

  it("an entry's u-syndication (the same post elsewhere) is its same_as; its u-featured an image", () => {
    const c = page(
      '<article class="h-entry"><h1 class="p-name">Snowy owls</h1><img class="u-featured" src="/img/owls.jpg" alt=""><a class="u-syndication" href="https://social.example/ana/1">also on social</a><div class="e-content"><p>Three snowy owls stayed all week.</p></div></article>',
    );
    expect(factOf(c, 'same_as', 'schema_org')?.value).toBe('https://social.example/ana/1');
    expect(factOf(c, 'image', 'schema_org')?.value).toBe('https://n.example/img/owls.jpg');
  });

  it("bug: an h-review's e-content was dropped; it is the review's body", () => {
    const c = page(
      '<div class="h-review"><span class="p-name">Quay Lamp review</span><span class="p-item h-product"><span class="p-name">Quay Lamp</span></span><data class="p-rating" value="4">4 of 5</data><div class="e-content">Bright, warm, solid.</div></div>',
    );
    expect(factOf(c, 'review_body', 'schema_org')?.value).toBe('Bright, warm, solid.');
  });
});

describe('the name structured markup gives an item the head names otherwise', () => {
  it('bug: a microdata or RDFa name that lost to the <title> was dropped; it is an alternate_name unless a title candidate says the same', () => {
    const body =
      '<div itemscope itemtype="https://schema.org/Event"><span itemprop="name">Quay Night Market</span><time itemprop="startDate" datetime="2026-07-04T18:00:00+01:00">4 July</time></div>';
    const page = (title: string) =>
      extractItem(
        {
          type: 'page',
          id: 'p',
          url: 'https://n.example/p',
          html: `<html><head><title>${title}</title></head><body>${body}</body></html>`,
          checksum: CHECKSUM,
        },
        site,
        { receivedAt: RECEIVED },
      );
    const other = page('Whitby this summer: markets, music and boats');
    expect(factOf(other, 'name', 'seo_meta')?.value).toBe('Whitby this summer: markets, music and boats');
    expect(factOf(other, 'alternate_name', 'schema_org')?.value).toBe('Quay Night Market');
    expect(factOf(page('Quay night market'), 'alternate_name', 'schema_org')).toBeUndefined();
  });
});

describe("a Twitter card's labels and sailthru tags (head-extras.html)", () => {
  const c = extractPage('head-extras.html', 'page', 'https://whitbynotes.example/lantern-walk');

  it('bug: twitter:label/data pairs and sailthru tags were dropped; "Written by" is an author, other labels facts, sailthru a date and keywords', () => {
    expect(entityKeys(c, 'Person')).toEqual(['ola berg']);
    expect(factOf(c, 'author', 'seo_meta')?.value).toBe('Ola Berg');
    expect(factOf(c, 'reading_time', 'seo_meta')?.value).toBe('4 minutes');
    expect(factOf(c, 'date_published', 'seo_meta')?.value).toBe('2025-12-12T17:30:00Z');
    expect(factOf(c, 'keywords', 'seo_meta')?.value).toEqual({ values: ['lantern walk', 'whitby', 'winter'] });
  });
});

describe('more OpenGraph: article:* and image alt text', () => {
  it('bug: article:expiration_time, other article:* keys and og:image:alt were dropped; they are facts', () => {
    const head =
      '<meta property="article:published_time" content="2025-11-02T08:00:00Z"><meta property="article:expiration_time" content="2026-11-02T08:00:00Z"><meta property="article:opinion" content="false">' +
      '<meta property="og:image" content="https://gazette.example/img/quay.jpg"><meta property="og:image:alt" content="The north quay at low tide">';
    const c = extractItem(
      {
        type: 'post',
        id: 'p',
        url: 'https://gazette.example/quay',
        html: `<html><head><title>Quay repairs finished early</title>${head}</head><body><p>Text.</p></body></html>`,
        checksum: CHECKSUM,
      },
      site,
      { receivedAt: RECEIVED },
    );
    expect(factOf(c, 'expiration_time', 'seo_meta')?.value).toBe('2026-11-02T08:00:00Z');
    expect(factOf(c, 'opinion', 'seo_meta')?.value).toBe('false');
    expect(factOf(c, 'image_alt', 'seo_meta')?.value).toBe('The north quay at low tide');
    // article:published_time stays the date published, not a fact of its own name.
    expect(factOf(c, 'date_published', 'seo_meta')?.value).toBe('2025-11-02T08:00:00Z');
    expect(factOf(c, 'published_time', 'seo_meta')).toBeUndefined();
  });
});

describe("Parse.ly's tags", () => {
  const page = (head: string) =>
    extractItem(
      {
        type: 'post',
        id: 'p',
        url: 'https://gazette.example/quay',
        html: `<html><head><title>Quay repairs finished early</title>${head}</head><body><p>Text.</p></body></html>`,
        checksum: CHECKSUM,
      },
      site,
      { receivedAt: RECEIVED },
    );
  const tags = (c: ItemContribution) =>
    c.entities
      .filter((e) => e.type === 'DefinedTerm')
      .map((e) => e.canonicalKey)
      .sort();

  it('bug: parsely-link, -image-url, -section and -tags were dropped; they are the url, image, category and tags', () => {
    const c = page(
      '<meta name="parsely-link" content="https://gazette.example/quay"><meta name="parsely-image-url" content="/img/quay.jpg"><meta name="parsely-section" content="Local"><meta name="parsely-tags" content="harbour,repairs">',
    );
    expect(factOf(c, 'url', 'seo_meta')?.value).toBe('https://gazette.example/quay');
    expect(factOf(c, 'image', 'seo_meta')?.value).toBe('https://gazette.example/img/quay.jpg');
    expect(tags(c)).toEqual(['category/local', 'tag/harbour', 'tag/repairs']);
  });

  it('the older JSON parsely-page is read as those tags: author, date, section and tags', () => {
    const json = JSON.stringify({
      title: 'Quay repairs finished early',
      author: 'Ana Lind',
      pub_date: '2025-11-02T08:00:00Z',
      section: 'Local',
      tags: ['harbour', 'repairs'],
    }).replace(/"/g, '&quot;');
    const c = page(`<meta name="parsely-page" content="${json}">`);
    expect(factOf(c, 'author', 'seo_meta')?.value).toBe('Ana Lind');
    expect(factOf(c, 'date_published', 'seo_meta')?.value).toBe('2025-11-02T08:00:00Z');
    expect(tags(c)).toEqual(['category/local', 'tag/harbour', 'tag/repairs']);
    // Not JSON: nothing is read from it, and nothing breaks.
    expect(factOf(page('<meta name="parsely-page" content="{not json">'), 'author', 'seo_meta')).toBeUndefined();
  });
});

describe('the <time> a blog theme marks', () => {
  const post = (head: string, body: string) =>
    extractItem(
      {
        type: 'post',
        id: 'p',
        url: 'https://n.example/p',
        html: `<html><head><title>Ten years of the lantern walk</title>${head}</head><body><article>${body}<p>The walk began in 2015 and grew every year since.</p><p>Next: <time datetime="2026-12-11">11 December</time>.</p></article></body></html>`,
        checksum: CHECKSUM,
      },
      site,
      { receivedAt: RECEIVED },
    );
  const times =
    '<time class="entry-date published" datetime="2025-12-12T17:30:00+00:00">December 12, 2025</time><time class="updated" datetime="2025-12-14T09:00:00+01:00">December 14</time>';

  it('bug: a post whose only dates are its theme\'s <time class="published"> and <time class="updated"> had none; they are its dates', () => {
    const c = post('', times);
    expect(factOf(c, 'date_published', 'text_extraction')?.value).toBe('2025-12-12T17:30:00Z');
    expect(factOf(c, 'date_modified', 'text_extraction')).toMatchObject({
      value: '2025-12-14T08:00:00Z',
      display: '2025-12-14T09:00:00+01:00',
    });
  });

  it('a classic hAtom post (hentry, vcard, <abbr class="published" title>) is read: a BlogPosting by its author, on its date', () => {
    const body =
      '<div class="post hentry"><h2 class="entry-title">Ten years of the lantern walk</h2><span class="author vcard"><a class="url fn" href="/author/ola/">Ola Berg</a></span>' +
      '<abbr class="published" title="Published">on</abbr> <abbr class="published" title="2025-12-12T17:30:00+00:00">December 12</abbr><div class="entry-content"><p>The walk began in 2015.</p></div></div>';
    const c = post('', body);
    expect(c.primaryEntity.type).toBe('BlogPosting');
    expect(entityKeys(c, 'Person')).toEqual(['https://n.example/author/ola']);
    expect(factOf(c, 'date_published', 'text_extraction')?.value).toBe('2025-12-12T17:30:00Z');
  });

  it('a <time> marked by its parent: WordPress blocks\' <div class="wp-block-post-date">, a theme\'s <span class="posted-on"><a><time>', () => {
    expect(
      factOf(
        post(
          '',
          '<div class="wp-block-post-date"><time datetime="2025-12-12T17:30:00+00:00">December 12, 2025</time></div>',
        ),
        'date_published',
        'text_extraction',
      )?.value,
    ).toBe('2025-12-12T17:30:00Z');
    expect(
      factOf(
        post(
          '',
          '<span class="posted-on">Posted on <a href="/p"><time datetime="2025-12-12">December 12, 2025</time></a></span>',
        ),
        'date_published',
        'text_extraction',
      )?.value,
    ).toBe('2025-12-12');
    // A news site's dateline.
    expect(
      factOf(
        post(
          '',
          '<div class="meta"><time class="content__dateline-wpd" datetime="2025-12-12T07:00:02-0500">12 Dec 2025</time></div>',
        ),
        'date_published',
        'text_extraction',
      )?.value,
    ).toBe('2025-12-12T12:00:02Z');
    // An hAtom <abbr> is marked by its own class only.
    expect(
      factOf(
        post('', '<span class="published"><abbr class="when" title="2025-12-12T17:30:00+00:00">Dec 12</abbr></span>'),
        'date_published',
        'text_extraction',
      ),
    ).toBeUndefined();
  });

  it('a plain <time> between the title and the body text dates the post (0.50), one after "updated" its update', () => {
    const c = post(
      '',
      '<h1>Ten years of the lantern walk</h1><p class="meta">Published <time datetime="2025-12-12">December 12</time>, updated <time datetime="2025-12-14">December 14</time></p>',
    );
    expect(factOf(c, 'date_published', 'text_extraction')).toMatchObject({ value: '2025-12-12', confidence: 0.5 });
    expect(factOf(c, 'date_modified', 'text_extraction')?.value).toBe('2025-12-14');
    expect(
      factOf(
        post(
          '',
          '<header><h1>Ten years of the lantern walk</h1><time datetime="2025-12-12">December 12, 2025</time></header>',
        ),
        'date_published',
        'text_extraction',
      )?.value,
    ).toBe('2025-12-12');
  });

  it("never a plain <time> before the title (a masthead's date), after the body text, in boilerplate, lists or tables, beside another, on an event's page or on a list of posts", () => {
    const body =
      'The walk began in 2015 and grew every year since, with more lanterns, more walkers and a longer route.';
    expect(
      factOf(
        post('', `<time datetime="2025-12-01">Monday</time><h1>Ten years of the lantern walk</h1>`),
        'date_published',
        'text_extraction',
      ),
    ).toBeUndefined();
    expect(
      factOf(
        post(
          '',
          `<h1>Ten years of the lantern walk</h1><p>${body}</p><p><time datetime="2025-12-12">December 12</time></p>`,
        ),
        'date_published',
        'text_extraction',
      ),
    ).toBeUndefined();
    expect(
      factOf(
        post('', `<h1>Ten years of the lantern walk</h1><aside><time datetime="2025-12-12">December 12</time></aside>`),
        'date_published',
        'text_extraction',
      ),
    ).toBeUndefined();
    // Times in a list or a table, or two unlabelled times, are many things' dates, not the page's.
    expect(
      factOf(
        post(
          '',
          `<h1>Ten years of the lantern walk</h1><ul><li><time datetime="2025-12-01">Dec 1</time> Lanterns</li><li><time datetime="2025-12-08">Dec 8</time> Walk</li></ul>`,
        ),
        'date_published',
        'text_extraction',
      ),
    ).toBeUndefined();
    expect(
      factOf(
        post(
          '',
          `<h1>Ten years of the lantern walk</h1><div><time datetime="2025-12-01">Dec 1</time> to <time datetime="2025-12-08">Dec 8</time></div>`,
        ),
        'date_published',
        'text_extraction',
      ),
    ).toBeUndefined();
    // An event's page: the <time> under its title is when the event is.
    const event = {
      '@context': 'https://schema.org',
      '@type': 'Event',
      name: 'Lantern walk',
      startDate: '2026-12-11T18:00:00+01:00',
    };
    const eventPage = post(
      `<script type="application/ld+json">${JSON.stringify(event)}</script>`,
      '<h1>Lantern walk</h1><p><time datetime="2026-12-11T18:00:00+01:00">11 December, 6 pm</time></p>',
    );
    expect(factOf(eventPage, 'date_published', 'text_extraction')).toBeUndefined();
    const list = extractItem(
      {
        type: 'page',
        id: 'l',
        url: 'https://n.example/blog',
        html: `<html><head><title>Blog</title></head><body><h1>Blog</h1><article><h2>One</h2><time datetime="2025-12-12">Dec 12</time></article><article><h2>Two</h2><time datetime="2025-12-10">Dec 10</time></article></body></html>`,
        checksum: CHECKSUM,
      },
      site,
      { receivedAt: RECEIVED },
    );
    expect(factOf(list, 'date_published', 'text_extraction')).toBeUndefined();
  });

  it('last, the dates a byline line writes out, as days (0.45): "By Ola Berg | December 12, 2025 | Updated 14 December 2025"', () => {
    const c = post(
      '',
      '<h1>Ten years of the lantern walk</h1><p class="byline">By Ola Berg | December 12, 2025 | Updated 14 December 2025</p>',
    );
    expect(factOf(c, 'date_published', 'text_extraction')).toMatchObject({ value: '2025-12-12', confidence: 0.45 });
    expect(factOf(c, 'date_modified', 'text_extraction')?.value).toBe('2025-12-14');
    expect(
      factOf(
        post(
          '',
          '<h1>Ten years of the lantern walk</h1><div class="entry-meta">Posted on Dec. 12th, 2025 by Ola Berg</div>',
        ),
        'date_published',
        'text_extraction',
      )?.value,
    ).toBe('2025-12-12');
    // Never a day that does not exist, a month without its day, or under a marked <time>.
    expect(
      factOf(post('', '<p class="byline">By Ola Berg, February 30, 2025</p>'), 'date_published', 'text_extraction'),
    ).toBeUndefined();
    expect(
      factOf(post('', '<p class="byline">By Ola Berg, December 2025</p>'), 'date_published', 'text_extraction'),
    ).toBeUndefined();
    expect(
      factOf(
        post('', `<p class="byline">By Ola Berg, December 1, 2025</p>${times}`),
        'date_published',
        'text_extraction',
      )?.value,
    ).toBe('2025-12-12T17:30:00Z');
  });

  it('a line that is only a label and a written date dates the page, above the title too ("Published on: December 12, 2025")', () => {
    expect(
      factOf(
        post('', '<span class="t2">Published on: December 12, 2025 </span><h1>Ten years of the lantern walk</h1>'),
        'date_published',
        'text_extraction',
      )?.value,
    ).toBe('2025-12-12');
    expect(
      factOf(
        post('', '<h1>Ten years of the lantern walk</h1><div>Last updated 14 December 2025</div>'),
        'date_modified',
        'text_extraction',
      )?.value,
    ).toBe('2025-12-14');
    expect(
      factOf(
        post('', '<h1>Ten years of the lantern walk</h1><div>Veröffentlicht am 12. Dezember 2025</div>'),
        'date_published',
        'text_extraction',
      )?.value,
    ).toBe('2025-12-12');
    expect(
      factOf(
        post('', '<h1>Ten years of the lantern walk</h1><div>Actualizado el 14 de diciembre de 2025</div>'),
        'date_modified',
        'text_extraction',
      )?.value,
    ).toBe('2025-12-14');
    // A sentence that holds a date is no date line.
    expect(
      factOf(
        post('', '<h1>Ten years of the lantern walk</h1><div>Published on December 12, 2025 by the town council</div>'),
        'date_published',
        'text_extraction',
      ),
    ).toBeUndefined();
  });

  it("reads <meta itemprop> that belongs to no item (in the head) as head metadata: datePublished, dateModified; never its author (Squarespace writes the site's name there)", () => {
    const c = post(
      '<meta itemprop="datePublished" content="2025-12-12T17:30:00+01:00"><meta itemprop="dateModified" content="2025-12-14"><meta itemprop="author" content="Lantern Club">',
      '',
    );
    expect(factOf(c, 'date_published', 'seo_meta')).toMatchObject({
      value: '2025-12-12T16:30:00Z',
      display: '2025-12-12T17:30:00+01:00',
    });
    expect(factOf(c, 'date_modified', 'seo_meta')?.value).toBe('2025-12-14');
    expect(factOf(c, 'author', 'seo_meta')).toBeUndefined();
  });

  it('only when nothing declares the date, and never an unmarked <time> in the text', () => {
    expect(
      factOf(
        post('<meta property="article:published_time" content="2025-12-01T10:00:00Z">', times),
        'date_published',
        'text_extraction',
      ),
    ).toBeUndefined();
    expect(factOf(post('', ''), 'date_published', 'text_extraction')).toBeUndefined();
  });
});

describe('geo meta tags', () => {
  it("bug: geo.position (or ICBM), geo.placename and geo.region were dropped; they are the page's geo, place name and region", () => {
    const head =
      '<meta name="geo.position" content="54.4858;-0.6206"><meta name="geo.placename" content="Whitby, North Yorkshire"><meta name="geo.region" content="GB-NYK">';
    const c = extractItem(
      {
        type: 'page',
        id: 'p',
        url: 'https://quaycafe.example/',
        html: `<html><head><title>Quay Café, Whitby</title>${head}</head><body><p>Coffee on the quay.</p></body></html>`,
        checksum: CHECKSUM,
      },
      site,
      { receivedAt: RECEIVED },
    );
    expect(factOf(c, 'geo', 'seo_meta')).toMatchObject({
      value: { latitude: 54.4858, longitude: -0.6206 },
      display: '54.4858, -0.6206',
    });
    expect(factOf(c, 'place_name', 'seo_meta')?.value).toBe('Whitby, North Yorkshire');
    expect(factOf(c, 'region', 'seo_meta')?.value).toBe('GB-NYK');
    const icbm = extractItem(
      {
        type: 'page',
        id: 'p',
        url: 'https://quaycafe.example/',
        html: '<html><head><title>Quay Café, Whitby</title><meta name="ICBM" content="54.4858, -0.6206"><meta name="geo.position" content="95;200"></head><body></body></html>',
        checksum: CHECKSUM,
      },
      site,
      { receivedAt: RECEIVED },
    );
    // An out-of-range position is no position; ICBM is read only when geo.position is absent.
    expect(factOf(icbm, 'geo', 'seo_meta')).toBeUndefined();
  });
});

describe('scholarly citation tags (scholarly-article.html)', () => {
  const c = extractPage('scholarly-article.html', 'page', 'https://jhe.example/articles/tidal-scour');

  it("bug: Highwire Press citation_* tags were dropped; a page of them is a ScholarlyArticle with its authors, date and the paper's details", () => {
    expect(c.primaryEntity.type).toBe('ScholarlyArticle');
    // One Person per citation_author tag, "Last, First" as the person is called.
    expect(entityKeys(c, 'Person').sort()).toEqual(['ana lind', 'per holm']);
    expect(factOf(c, 'author', 'seo_meta')?.value).toEqual({ values: ['Ana Lind', 'Per Holm'] });
    // A year-first date with slashes is that date.
    expect(factOf(c, 'date_published', 'seo_meta')?.value).toBe('2025-03-14');
    expect(factOf(c, 'description', 'seo_meta')?.value).toBe(
      'Measurements at three timber quays show scour depths twice those the usual formulas predict.',
    );
    const facts = Object.fromEntries(
      [
        'journal',
        'volume',
        'issue',
        'first_page',
        'last_page',
        'doi',
        'issn',
        'publisher',
        'pdf_url',
        'keywords',
        'author_institution',
      ].map((p) => [p, factOf(c, p, 'seo_meta')?.value]),
    );
    expect(facts).toEqual({
      journal: 'Journal of Harbour Engineering',
      volume: '12',
      issue: '2',
      first_page: '101',
      last_page: '118',
      doi: '10.5555/jhe.2025.012',
      issn: '1234-5679',
      publisher: 'Coast Academic Press',
      pdf_url: 'https://jhe.example/articles/tidal-scour.pdf',
      keywords: { values: ['scour', 'tides', 'timber quays'] },
      author_institution: { values: ['Whitby Institute of Coastal Studies', 'North Sea Harbour Trust'] },
    });
  });
});

describe('JSON-LD keys written as IRIs or with a declared prefix', () => {
  const product = (ld: object) =>
    extractItem(
      {
        type: 'product',
        id: 'p',
        url: 'https://n.example/p',
        html: `<html><head><title>Lamps</title><script type="application/ld+json">${JSON.stringify(ld)}</script></head><body></body></html>`,
        checksum: CHECKSUM,
      },
      site,
      { receivedAt: RECEIVED },
    );

  it('bug: expanded keys ("http://schema.org/sku") and CURIEs ("s:sku") were not read; they are their terms', () => {
    const expanded = product({
      '@type': 'http://schema.org/Product',
      'http://schema.org/name': 'Quay Lamp',
      'https://schema.org/sku': [{ '@value': 'QL-2' }],
    });
    expect(factOf(expanded, 'sku', 'schema_org')?.value).toBe('QL-2');
    const curie = product({
      '@context': { s: 'http://schema.org/' },
      '@type': 's:Product',
      's:name': 'Quay Lamp',
      's:brand': { '@type': 's:Brand', 's:name': 'Quay Goods' },
    });
    expect(factOf(curie, 'brand', 'schema_org')?.value).toBe('Quay Goods');
    // A prefix the context does not map to schema.org stays a key of another vocabulary.
    const other = product({
      '@context': ['https://schema.org', { ex: 'https://example.org/terms#' }],
      '@type': 'Product',
      name: 'Quay Lamp',
      'ex:sku': 'X-1',
    });
    expect(factOf(other, 'sku', 'schema_org')).toBeUndefined();
  });

  it('a key stated as a term wins over its IRI; "__proto__" is not read', () => {
    const c = product(
      JSON.parse(
        '{"@type": "Product", "name": "Quay Lamp", "sku": "TERM", "http://schema.org/sku": "IRI", "__proto__": {"sku": "PROTO"}}',
      ),
    );
    expect(factOf(c, 'sku', 'schema_org')?.value).toBe('TERM');
  });
});

describe('associated media', () => {
  const article = (props: object) =>
    extractItem(
      {
        type: 'post',
        id: 'p',
        url: 'https://n.example/p',
        html: `<html><head><title>Quay repairs finished early</title><script type="application/ld+json">${JSON.stringify({ '@context': 'https://schema.org', '@type': 'NewsArticle', headline: 'Quay repairs finished early', ...props })}</script></head><body></body></html>`,
        checksum: CHECKSUM,
      },
      site,
      { receivedAt: RECEIVED },
    );

  it("bug: an article's associatedMedia images were dropped; they are its images, in one fact with its image", () => {
    const media = { '@type': 'ImageObject', url: 'https://n.example/img/quay.jpg', caption: 'The quay' };
    expect(factOf(article({ associatedMedia: media }), 'image', 'schema_org')?.value).toBe(
      'https://n.example/img/quay.jpg',
    );
    expect(
      factOf(
        article({
          image: 'https://n.example/img/lead.jpg',
          associatedMedia: [media, { '@type': 'VideoObject', contentUrl: 'https://n.example/v.mp4' }],
        }),
        'image',
        'schema_org',
      )?.value,
    ).toEqual({ values: ['https://n.example/img/lead.jpg', 'https://n.example/img/quay.jpg'] });
  });
});

describe('a name of several values', () => {
  it('bug: a JSON-LD name given in two languages kept the first only; the others are alternate names, with any alternateName', () => {
    const ld = {
      '@context': 'https://schema.org',
      '@type': 'Product',
      name: [
        { '@value': 'Quay Lamp', '@language': 'en' },
        { '@value': 'Kailampe', '@language': 'de' },
      ],
      alternateName: 'QL lamp',
      sku: 'QL-1',
    };
    const c = extractItem(
      {
        type: 'product',
        id: 'p',
        url: 'https://n.example/p',
        html: `<html><head><title>Quay Lamp</title><script type="application/ld+json">${JSON.stringify(ld)}</script></head><body></body></html>`,
        checksum: CHECKSUM,
      },
      site,
      { receivedAt: RECEIVED },
    );
    expect(factOf(c, 'name', 'schema_org')?.value).toBe('Quay Lamp');
    expect(factOf(c, 'alternate_name', 'schema_org')?.value).toEqual({ values: ['QL lamp', 'Kailampe'] });
  });
});

describe("Google's retired data-vocabulary.org microdata", () => {
  it("bug: a data-vocabulary Review kept its own property names (reviewer, dtreviewed, rating) as odd facts; they read as schema.org's", () => {
    const body =
      '<div itemscope itemtype="http://data-vocabulary.org/Review"><span itemprop="itemreviewed">Quay Lamp</span> reviewed by <span itemprop="reviewer">Ida Kerr</span> on <time itemprop="dtreviewed" datetime="2012-03-04">March 4</time>. Rating: <span itemprop="rating">4.5</span>. <span itemprop="summary">Bright and warm.</span></div>';
    const c = extractItem(
      {
        type: 'review',
        id: 'r',
        url: 'https://n.example/r',
        html: `<html><head><title>Quay Lamp review</title></head><body>${body}</body></html>`,
        checksum: CHECKSUM,
      },
      site,
      { receivedAt: RECEIVED },
    );
    expect(relsOf(c, 'authored_by').map((r) => r.to)).toEqual(['Person:ida kerr']);
    expect(relsOf(c, 'reviews').map((r) => r.to)).toEqual(['Thing:quay lamp']);
    expect(factOf(c, 'date_published', 'schema_org')?.value).toBe('2012-03-04');
    expect(factOf(c, 'rating_value', 'schema_org')?.value).toBe(4.5);
    expect(factOf(c, 'description', 'schema_org')?.value).toBe('Bright and warm.');
    expect(factsOf(c, 'reviewer')).toEqual([]);
  });
});

describe('mailto: and tel: links', () => {
  it('bug: a microdata email on a mailto: link was the link text ("mail"); now the address, in microdata and RDFa', () => {
    const body =
      '<div itemscope itemtype="https://schema.org/Person"><span itemprop="name">Ola Berg</span><a itemprop="email" href="mailto:ola%40harbour.example?subject=hi">mail</a> <a itemprop="telephone" href="tel:+44-1947-000000">call</a></div>' +
      '<div vocab="https://schema.org/" typeof="Organization"><span property="name">Harbour Trust</span><a property="email" href="mailto:info@harbour.example">write to us</a></div>';
    const c = extractItem(
      {
        type: 'page',
        id: 'p',
        url: 'https://n.example/p',
        html: `<html><head><title>Contact the harbour</title></head><body>${body}</body></html>`,
        checksum: CHECKSUM,
      },
      site,
      { receivedAt: RECEIVED },
    );
    const ola = { type: 'Person', canonicalKey: 'ola berg' };
    expect(factOf(c, 'email', 'schema_org', ola)?.value).toBe('ola@harbour.example');
    expect(factOf(c, 'telephone', 'schema_org', ola)?.value).toBe('+44-1947-000000');
    expect(factOf(c, 'email', 'schema_org', { type: 'Organization', canonicalKey: 'harbour trust' })?.value).toBe(
      'info@harbour.example',
    );
  });
});

describe('hostile structured data stays bounded', () => {
  const extractHtml = (html: string) =>
    extractItem(
      { type: 'page', id: 'x', url: 'https://shop.example/x', html, checksum: CHECKSUM } as IngestItem,
      site,
      { receivedAt: RECEIVED },
    );

  it('an itemref to an element around the item, to itself and to a missing id is ignored; many refs do not multiply work', () => {
    const refs = Array.from({ length: 40 }, () => 'outer self nope').join(' ');
    const html = `<div id="outer"><div id="self" itemscope itemtype="https://schema.org/Product" itemref="${refs}"><span itemprop="name">Loop</span><span itemprop="sku">L-1</span></div></div>`;
    const c = extractHtml(html);
    expect(factsOf(c, 'sku').map((f) => f.value)).toEqual(['L-1']);
  });

  it('RDFa nested 10,000 elements deep is read without exhausting the stack', () => {
    const depth = 10_000;
    const html = `<body vocab="https://schema.org/"><div typeof="Product" resource="https://shop.example/x"><span property="name">Deep</span>${'<div>'.repeat(depth)}<span property="sku">D-1</span>${'</div>'.repeat(depth)}</div></body>`;
    const c = extractHtml(html);
    expect(c.primaryEntity.type).toBe('Product');
    expect(factOf(c, 'sku', 'schema_org')?.value).toBe('D-1');
  });

  it('microformats nested deeper than the parser can go are skipped, not thrown', () => {
    const depth = 5_000;
    const html = `<div class="h-card"><span class="p-name">${'<b>'.repeat(depth)}Deep${'</b>'.repeat(depth)}</span></div>`;
    expect(() => extractHtml(html)).not.toThrow();
  });
});

describe('several offers (offers.html)', () => {
  const c = extractPage('offers.html', 'product', 'https://shop.example/p/wool-blanket');

  it('bug: several offers left several competing price facts; now one {"values"} fact per predicate in offer order, duplicates dropped', () => {
    expect(factsOf(c, 'price')).toHaveLength(1);
    expect(factOf(c, 'price', 'schema_org')).toMatchObject({
      value: { values: [79, 119] },
      currency: 'EUR',
      display: '79.00 EUR, 119.00 EUR',
    });
    expect(factOf(c, 'availability', 'schema_org')).toMatchObject({
      value: { values: ['InStock', 'OutOfStock'] },
      display: 'InStock, OutOfStock',
    });
    expect(factOf(c, 'offer_url', 'schema_org')?.value).toEqual({
      values: ['https://shop.example/p/wool-blanket?size=single', 'https://shop.example/p/wool-blanket?size=double'],
    });
    expect(factOf(c, 'seller', 'schema_org')).toMatchObject({
      value: { values: ['Loom House', 'Weave Co'] },
      display: 'Loom House, Weave Co',
    });
    expect(relsOf(c, 'offered_by').map((r) => r.to)).toEqual(['Organization:loom house', 'Organization:weave co']);
  });
});

describe('product variants (product-variants.html)', () => {
  const c = extractPage('product-variants.html', 'product', 'https://shop.example/p/harbour-tee');
  const group = { type: 'ProductGroup', canonicalKey: 'https://shop.example/p/harbour-tee' };
  const small = { type: 'Product', canonicalKey: 'harbour tee # sku:ht-01-s-navy' };
  const medium = { type: 'Product', canonicalKey: 'harbour tee # sku:ht-01-m-navy' };
  const xl = { type: 'Product', canonicalKey: 'https://shop.example/p/harbour-tee?size=xl' };

  it('bug: hasVariant was dropped with every size, colour and price; now each variant is a Product the group has_variant, with its own facts', () => {
    expect(c.primaryEntity).toEqual(group);
    expect(
      c.entities
        .filter((e) => e.type === 'Product')
        .map((e) => e.canonicalKey)
        .sort(),
    ).toEqual([small.canonicalKey, medium.canonicalKey, xl.canonicalKey].sort());
    expect(
      relsOf(c, 'has_variant')
        .map((r) => r.to)
        .sort(),
    ).toEqual([`Product:${small.canonicalKey}`, `Product:${medium.canonicalKey}`, `Product:${xl.canonicalKey}`].sort());
    expect(
      [small, medium, xl].map((v) => [
        factOf(c, 'size', 'schema_org', v)?.value,
        factOf(c, 'color', 'schema_org', v)?.value,
        factOf(c, 'price', 'schema_org', v)?.value,
        factOf(c, 'availability', 'schema_org', v)?.value,
      ]),
    ).toEqual([
      ['S', 'navy', 24, 'InStock'],
      ['M', 'navy', 24, 'OutOfStock'],
      ['XL', 'sand', 27.5, 'InStock'],
    ]);
    expect(factOf(c, 'variant', 'schema_org')).toMatchObject({
      value: { values: ['Harbour Tee (S, navy)', 'Harbour Tee (M, navy)', 'Harbour Tee (XL, sand)'] },
    });
    expect(factOf(c, 'product_group_id', 'schema_org')?.value).toBe('HT-01');
  });

  it('variants of one name without a url are told apart by their first identifier (gtin, isbn, sku, mpn), not merged by name', () => {
    expect(factOf(c, 'sku', 'schema_org', small)?.value).toBe('HT-01-S-NAVY');
    expect(factOf(c, 'gtin', 'schema_org', xl)?.value).toBe('4006381333931');
    const withoutIds = extractItem(
      {
        type: 'page',
        id: 'x',
        url: 'https://shop.example/gift',
        checksum: CHECKSUM,
        html: `<html><head><title>Gift</title><script type="application/ld+json">${JSON.stringify({
          '@context': 'https://schema.org',
          '@type': 'ItemList',
          name: 'Gift ideas',
          itemListElement: [
            { '@type': 'Product', name: 'Harbour Tee' },
            { '@type': 'Product', name: 'Harbour Tee', gtin13: '4006381333931' },
          ],
        })}</script></head><body><p>Gifts.</p></body></html>`,
      },
      site,
      { receivedAt: RECEIVED },
    );
    expect(
      withoutIds.entities
        .filter((e) => e.type === 'Product')
        .map((e) => e.canonicalKey)
        .sort(),
    ).toEqual(['harbour tee', 'harbour tee # gtin:4006381333931']);
  });
});

describe('properties no rule names: what the page states is kept (recipe.html, job-posting.html, organization.html)', () => {
  it('bug: a Recipe kept only its name, description and author; now its times, yield, ingredients, steps and nutrition too', () => {
    const c = extractPage('recipe.html', 'page', 'https://shop.example/recipes/soda-bread');
    const value = (predicate: string) => factOf(c, predicate, 'schema_org')?.value;
    expect(c.primaryEntity.type).toBe('Recipe');
    expect([
      value('prep_time'),
      value('cook_time'),
      value('total_time'),
      value('recipe_yield'),
      value('recipe_cuisine'),
    ]).toEqual(['PT15M', 'PT40M', 'PT55M', '1 loaf', 'Irish']);
    // An ISO 8601 duration keeps its value and reads as a duration.
    expect(factOf(c, 'total_time', 'schema_org')?.display).toBe('55 min');
    expect(value('recipe_ingredient')).toEqual({
      values: ['250 g wholemeal flour', '100 g rolled oats', '1 tsp bicarbonate of soda', '400 ml buttermilk'],
    });
    expect(value('recipe_instructions')).toEqual({
      values: [
        'Heat the oven to 200 °C.',
        'Mix the dry ingredients, pour in the buttermilk and stir to a soft dough.',
        'Shape a round, cut a deep cross and bake for 40 minutes.',
      ],
    });
    expect([value('nutrition_calories'), value('nutrition_fiber_content'), value('nutrition_serving_size')]).toEqual([
      '190 calories',
      '5 g',
      '1 slice',
    ]);
    expect(value('suitable_for_diet')).toBe('VegetarianDiet');
    expect(value('is_accessible_for_free')).toBe('true');
    // The page's machinery is not a fact.
    expect(c.facts.map((f) => f.predicate)).not.toContain('potential_action');
  });

  it('bug: a JobPosting kept only its name and description; now its dates, employment types, hiring organization, place and salary', () => {
    const c = extractPage('job-posting.html', 'page', 'https://shop.example/jobs/night-baker');
    const value = (predicate: string) => factOf(c, predicate, 'schema_org');
    expect(value('date_posted')?.value).toBe('2026-03-02');
    expect(value('valid_through')).toMatchObject({
      value: '2026-04-01T22:59:00Z',
      display: '2026-04-01T23:59:00+01:00',
    });
    expect(value('employment_type')?.value).toEqual({ values: ['FULL_TIME', 'CONTRACTOR'] });
    expect(value('job_location')?.value).toBe('1 Mill Road, Cork, IE');
    expect(value('base_salary')?.value).toBe('30000-34000 EUR per YEAR');
    expect(value('experience_requirements_months_of_experience')?.value).toBe('12');
    expect(relsOf(c, 'hiring_organization')).toEqual([
      {
        from: 'JobPosting:https://shop.example/jobs/night-baker',
        to: 'Organization:https://oatco.example/',
        provenance: 'schema_org',
      },
    ]);
  });

  it('an organization keeps its legal name, founding year, founders (each a Person), staff count and contact point', () => {
    const c = extractPage('organization.html', 'page', 'https://shop.example/about');
    const corporation = { type: 'Corporation', canonicalKey: 'https://shop.example/about' };
    const value = (predicate: string) => factOf(c, predicate, 'schema_org', corporation)?.value;
    expect([
      value('legal_name'),
      value('founding_date'),
      value('number_of_employees'),
      value('slogan'),
      value('vat_id'),
    ]).toEqual(['Oat Co Milling Ltd.', '1998', '42', 'Milled slowly since 1998', 'IE1234567X']);
    expect([
      value('contact_point_telephone'),
      value('contact_point_contact_type'),
      value('contact_point_available_language'),
    ]).toEqual(['+353 21 555 0100', 'customer service', { values: ['English', 'Irish'] }]);
    expect(value('founder')).toEqual({ values: ['Aoife Walsh', 'Liam Daly'] });
    expect(relsOf(c, 'founder').map((r) => r.to)).toEqual(['Person:aoife walsh', 'Person:liam daly']);
  });

  it('durations read as durations in display, and a text that only looks like one does not', () => {
    const node = {
      '@context': 'https://schema.org',
      '@type': 'VideoObject',
      name: 'Milling oats',
      duration: 'PT1H4M2S',
      timeRequired: 'P1DT2H',
      description: 'PT',
    };
    const c = extractItem(
      {
        type: 'media',
        id: 'v',
        url: 'https://shop.example/v',
        checksum: CHECKSUM,
        html: `<html><head><title>Milling oats</title><script type="application/ld+json">${JSON.stringify(node)}</script></head><body><p>Milling.</p></body></html>`,
      } as IngestItem,
      site,
      { receivedAt: RECEIVED },
    );
    expect(factOf(c, 'duration', 'schema_org')).toMatchObject({ value: 'PT1H4M2S', display: '1 h 4 min 2 s' });
    expect(factOf(c, 'time_required', 'schema_org')).toMatchObject({ value: 'P1DT2H', display: '1 d 2 h' });
    expect(factOf(c, 'description', 'schema_org')).not.toHaveProperty('display');
  });

  it('a property whose predicate a rule makes keeps that rule\'s form: a stray "price" beside the offers is no second price', () => {
    const node = {
      '@context': 'https://schema.org',
      '@type': 'Product',
      name: 'Lamp',
      price: 'ten euros',
      availability: 'soon',
      offers: { '@type': 'Offer', price: '10.00', priceCurrency: 'EUR' },
      countryOfOrigin: 'PT',
    };
    const c = extractItem(
      {
        type: 'product',
        id: 'x',
        url: 'https://shop.example/x',
        checksum: CHECKSUM,
        html: `<html><head><title>Lamp</title><script type="application/ld+json">${JSON.stringify(node)}</script></head><body><p>Lamp.</p></body></html>`,
      } as IngestItem,
      site,
      { receivedAt: RECEIVED },
    );
    expect(factsOf(c, 'price').map((f) => f.value)).toEqual([10]);
    expect(factsOf(c, 'availability')).toEqual([]);
    expect(factOf(c, 'country_of_origin', 'schema_org')?.value).toBe('PT');
  });

  it('a node of ten thousand properties no rule names gives a bounded number of facts', () => {
    const node: Record<string, unknown> = { '@context': 'https://schema.org', '@type': 'Product', name: 'Many' };
    for (let i = 0; i < 10_000; i++) node[`prop${i}`] = `v${i}`;
    const c = extractItem(
      {
        type: 'page',
        id: 'x',
        url: 'https://shop.example/x',
        checksum: CHECKSUM,
        html: `<html><head><title>Many</title><script type="application/ld+json">${JSON.stringify(node)}</script></head><body><p>Many.</p></body></html>`,
      } as IngestItem,
      site,
      { receivedAt: RECEIVED },
    );
    expect(c.facts.filter((f) => /^prop\d+$/.test(f.predicate)).length).toBe(100);
    // ...and inside one structured value of as many.
    const inner: Record<string, string> = {};
    for (let i = 0; i < 10_000; i++) inner[`prop${i}`] = `v${i}`;
    const nested = extractItem(
      {
        type: 'page',
        id: 'y',
        url: 'https://shop.example/y',
        checksum: CHECKSUM,
        html: `<html><head><title>Nested</title><script type="application/ld+json">${JSON.stringify({ '@context': 'https://schema.org', '@type': 'Product', name: 'Nested', additionalSpec: { '@type': 'StructuredValue', ...inner } })}</script></head><body><p>Nested.</p></body></html>`,
      } as IngestItem,
      site,
      { receivedAt: RECEIVED },
    );
    expect(nested.facts.filter((f) => f.predicate.startsWith('additional_spec_')).length).toBe(100);
  });

  it('several structured values of one property give one fact per property with the values of all (two ContactPoints)', () => {
    const node = {
      '@context': 'https://schema.org',
      '@type': 'Organization',
      name: 'Oat Co',
      url: 'https://shop.example/o',
      contactPoint: [
        { '@type': 'ContactPoint', telephone: '+353 1', contactType: 'sales' },
        { '@type': 'ContactPoint', telephone: '+353 2', contactType: 'support' },
      ],
    };
    const c = extractItem(
      {
        type: 'page',
        id: 'o',
        url: 'https://shop.example/o',
        checksum: CHECKSUM,
        html: `<html><head><title>Oat Co</title><script type="application/ld+json">${JSON.stringify(node)}</script></head><body><p>Oat Co.</p></body></html>`,
      } as IngestItem,
      site,
      { receivedAt: RECEIVED },
    );
    const org = { type: 'Organization', canonicalKey: 'https://shop.example/o' };
    expect(factOf(c, 'contact_point_telephone', 'schema_org', org)?.value).toEqual({ values: ['+353 1', '+353 2'] });
    expect(factOf(c, 'contact_point_contact_type', 'schema_org', org)?.value).toEqual({ values: ['sales', 'support'] });
  });
});

describe('a review beside the main node, and several sections (review-beside.html)', () => {
  const c = extractPage('review-beside.html', 'post', 'https://shop.example/reviews/kettle-pro-2');
  const review = { type: 'Review', canonicalKey: 'review by ida kerr of kettle pro 2' };

  it('bug: a Review node without a name beside the article was dropped with its rating; now a Review of what it reviews, named as reviews are', () => {
    expect(c.entities.find((e) => e.canonicalKey === review.canonicalKey)).toMatchObject({
      type: 'Review',
      name: 'Review by Ida Kerr',
    });
    expect(relsOf(c, 'reviews')).toEqual([
      { from: `Review:${review.canonicalKey}`, to: 'Thing:kettle pro 2', provenance: 'schema_org' },
    ]);
    // A rating given as a one-element array, as some sites write it.
    expect(factOf(c, 'rating_value', 'schema_org', review)).toMatchObject({ value: 8, display: '8/10' });
    expect(factOf(c, 'review_body', 'schema_org', review)?.value).toBe(
      'Boils a litre in two minutes and barely makes a sound.',
    );
  });

  it('bug: several sections were one text joined with ", "; now one {"values"} fact', () => {
    expect(factOf(c, 'category', 'schema_org')?.value).toEqual({ values: ['Reviews', 'Kitchen'] });
  });
});

describe("who wrote it and where it sits: author pages, the publisher's page, breadcrumbs (news-authors.html)", () => {
  const c = extractPage('news-authors.html', 'post', 'https://gazette.example/local/harbour/dredging');
  const ana = { type: 'Person', canonicalKey: 'https://gazette.example/staff/ana-lind' };
  const per = { type: 'Person', canonicalKey: 'https://gazette.example/staff/per-holm' };

  it('bug: an author the head names was keyed by name although the page links their own page; now by that page (microdata itemid, a link, article:author)', () => {
    expect(entityKeys(c, 'Person').sort()).toEqual([ana.canonicalKey, per.canonicalKey]);
    // The head's spelling names the person (the microdata's is in capitals); the page is its url fact.
    expect(c.entities.find((e) => e.canonicalKey === ana.canonicalKey)?.name).toBe('Ana Lind');
    expect(factOf(c, 'url', 'seo_meta', ana)?.value).toBe('https://gazette.example/staff/ana-lind');
    expect(factOf(c, 'url', 'seo_meta', per)?.value).toBe('https://gazette.example/staff/per-holm');
    expect(
      relsOf(c, 'authored_by')
        .map((r) => r.to)
        .sort(),
    ).toEqual([`Person:${ana.canonicalKey}`, `Person:${per.canonicalKey}`]);
    expect(factOf(c, 'author', 'seo_meta')).toMatchObject({
      value: { values: ['Ana Lind', 'Per Holm'] },
      display: 'Ana Lind and Per Holm',
    });
    // Every article:author url keys a Person: none is left over as an author_url fact.
    expect(factsOf(c, 'author_url')).toEqual([]);
  });

  it("bug: an item whose itemprop belongs to no item (a blog template's blogPost) was not read; now it is the page's item", () => {
    expect(c.primaryEntity.type).toBe('NewsArticle');
    expect(factOf(c, 'headline', 'schema_org')?.value).toBe('Harbour dredging to start in May');
  });

  it("article:publisher is the site's same_as; a WebSite's description is the site's", () => {
    const siteRef = { type: 'Organization', canonicalKey: site.domain };
    expect(factOf(c, 'same_as', 'seo_meta', siteRef)?.value).toBe('https://social.example/coastgazette');
    expect(factOf(c, 'description', 'schema_org', siteRef)?.value).toBe(
      'News from the harbour towns, every morning since 1921',
    );
  });

  it("a BreadcrumbList is the page's breadcrumb fact, its items in position order", () => {
    expect(factOf(c, 'breadcrumb', 'schema_org')).toMatchObject({
      value: { values: ['News', 'Local', 'Harbour'] },
      display: 'News › Local › Harbour',
    });
  });

  it('an article:author url that keys no Person is kept as author_url', () => {
    const head =
      '<meta name="author" content="Jane Roe and John Doe"><meta property="article:author" content="https://n.example/jane"><meta property="article:author" content="https://n.example/john">';
    const other = extractItem(
      {
        type: 'post',
        id: 'p',
        url: 'https://n.example/p',
        html: `<html><head><title>A post title</title>${head}</head><body><p>Text.</p></body></html>`,
        checksum: CHECKSUM,
      },
      site,
      { receivedAt: RECEIVED },
    );
    expect(entityKeys(other, 'Person').sort()).toEqual(['jane roe', 'john doe']);
    expect(factOf(other, 'author_url', 'seo_meta')?.value).toEqual({
      values: ['https://n.example/jane', 'https://n.example/john'],
    });
  });
});

describe('author text and breadcrumbs in other forms', () => {
  const page = (body: string) =>
    extractItem(
      {
        type: 'post',
        id: 'p',
        url: 'https://n.example/p',
        html: `<html><head><title>A post title</title></head><body>${body}<p>Text.</p></body></html>`,
        checksum: CHECKSUM,
      },
      site,
      { receivedAt: RECEIVED },
    );

  it('bug: a schema.org author given as one line of several people was one Person; now one each, the line as written in display', () => {
    const c = page(
      '<script type="application/ld+json">{"@context":"https://schema.org","@type":"Article","headline":"H","author":"By Jane Roe and John Doe"}</script>',
    );
    expect(entityKeys(c, 'Person').sort()).toEqual(['jane roe', 'john doe']);
    expect(factOf(c, 'author', 'schema_org')).toMatchObject({
      value: { values: ['Jane Roe', 'John Doe'] },
      display: 'Jane Roe and John Doe',
    });
  });

  it('bug: a microdata Person named from a byline was "By Lucy Akins"; now Lucy Akins, and the head\'s author of that name is keyed by its page', () => {
    const person =
      '<div itemprop="author" itemscope itemtype="https://schema.org/Person"><a itemprop="url" href="/contributor/lucy-akins/"><span itemprop="name">By Lucy Akins</span></a></div>';
    const article = (head: string) =>
      extractItem(
        {
          type: 'post',
          id: 'p',
          url: 'https://n.example/p',
          checksum: CHECKSUM,
          html: `<html><head><title>How to build a terrarium</title>${head}</head><body><article itemscope itemtype="https://schema.org/Article"><h1 itemprop="headline">How to build a terrarium</h1>${person}<p>Text.</p></article></body></html>`,
        },
        site,
        { receivedAt: RECEIVED },
      );
    expect(
      article('')
        .entities.filter((e) => e.type === 'Person')
        .map((e) => [e.name, e.canonicalKey]),
    ).toEqual([['Lucy Akins', 'https://n.example/contributor/lucy-akins']]);
    expect(entityKeys(article('<meta name="author" content="Lucy Akins">'), 'Person')).toEqual([
      'https://n.example/contributor/lucy-akins',
    ]);
  });

  it('rel="author" links identify the head\'s authors: by their text, or the one link for a one-person line; a team page does not', () => {
    const withHead = (head: string, body = '') =>
      extractItem(
        {
          type: 'post',
          id: 'p',
          url: 'https://n.example/p',
          html: `<html><head><title>A post title here</title>${head}</head><body>${body}<p>Text.</p></body></html>`,
          checksum: CHECKSUM,
        },
        site,
        { receivedAt: RECEIVED },
      );
    expect(
      entityKeys(
        withHead('<meta name="author" content="Ola Berg"><link rel="author" href="/people/ola-berg">'),
        'Person',
      ),
    ).toEqual(['https://n.example/people/ola-berg']);
    const two = withHead(
      '<meta name="author" content="Ola Berg and Ana Lind">',
      '<p>By <a rel="author" href="/people/ana">Ana Lind</a> and <a rel="author" href="/people/ola">Ola Berg</a></p>',
    );
    expect(entityKeys(two, 'Person').sort()).toEqual(['https://n.example/people/ana', 'https://n.example/people/ola']);
    expect(
      entityKeys(withHead('<meta name="author" content="Ola Berg"><link rel="author" href="/team/">'), 'Person'),
    ).toEqual(['ola berg']);
  });

  it('a data-vocabulary.org Breadcrumb chain, its crumbs nested or side by side', () => {
    const crumb = (title: string, inner = '') =>
      `<span itemprop="child" itemscope itemtype="http://data-vocabulary.org/Breadcrumb"><a itemprop="url" href="/${title}"><span itemprop="title">${title}</span></a>${inner}</span>`;
    const c = page(
      `<div itemscope itemtype="http://data-vocabulary.org/Breadcrumb"><span itemprop="title">Home</span>${crumb('Crafts', crumb('Paper'))}${crumb('Projects')}</div>`,
    );
    expect(factOf(c, 'breadcrumb', 'schema_org')?.value).toEqual({ values: ['Home', 'Crafts', 'Paper', 'Projects'] });
  });

  it('a hostile trail of ten thousand crumbs is read to its first 20', () => {
    const items = Array.from({ length: 10_000 }, (_, i) => ({
      '@type': 'ListItem',
      position: i + 1,
      name: `Crumb ${i + 1}`,
    }));
    const c = page(
      `<script type="application/ld+json">${JSON.stringify({ '@context': 'https://schema.org', '@type': 'BreadcrumbList', itemListElement: items })}</script>`,
    );
    expect((factOf(c, 'breadcrumb', 'schema_org')?.value as { values: string[] }).values).toHaveLength(20);
  });
});

describe('templated Q&A over several values', () => {
  it('bug: the price answer showed a {"values"} availability as [object Object]; it quotes the joined display', () => {
    const c = extractPage('offers.html', 'product', 'https://shop.example/p/wool-blanket');
    expect(c.qa.find((q) => q.question === 'What does Wool Blanket cost?')?.answer).toBe(
      'Wool Blanket costs 79.00 EUR, 119.00 EUR (InStock, OutOfStock).',
    );
  });
});
