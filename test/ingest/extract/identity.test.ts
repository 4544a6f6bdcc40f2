import { describe, expect, it } from 'vitest';
import type { ItemContribution } from '../../../src/ingest/extract/contribution.js';
import { identityType, mostSpecificType, typeFamily } from '../../../src/ingest/extract/identity.js';
import { extractItem } from '../../../src/ingest/extract/index.js';
import { buildGraphFromItems } from '../../../src/ingest/graph/build-from-items.js';
import { CHECKSUM, RECEIVED, extractPage, factOf, relsOf, site } from './helpers.js';

/** Issue 18, entity identity (docs/contract.md#entity-identity): url and sameAs first, then the type's natural key. */

function keysOf(c: ItemContribution, type: string): string[] {
  return c.entities
    .filter((e) => e.type === type)
    .map((e) => e.canonicalKey)
    .sort();
}

describe('events on a programme page (season-programme.html)', () => {
  const c = extractPage('season-programme.html', 'page', 'https://halls.example/programme');
  const venue = 'kettle yard hall, 3 mill lane, cambridge';

  it('bug: one quartet on three dates was one entity with one date; now three, each keyed by name, start (UTC) and place, each with its own date', () => {
    const keys = ['2026-10-02T18:30:00Z', '2026-10-09T18:30:00Z', '2026-10-16T18:30:00Z'].map(
      (start) => `quartet evening @ ${start} @ ${venue}`,
    );
    expect(keysOf(c, 'MusicEvent')).toEqual(keys);
    expect(
      keys.map((key) => factOf(c, 'start_date', 'schema_org', { type: 'MusicEvent', canonicalKey: key })?.value),
    ).toEqual(['2026-10-02T18:30:00Z', '2026-10-09T18:30:00Z', '2026-10-16T18:30:00Z']);
    expect(
      relsOf(c, 'located_at')
        .filter((r) => r.from.startsWith('MusicEvent:'))
        .map((r) => r.to),
    ).toEqual([`MusicVenue:${venue}`, `MusicVenue:${venue}`, `MusicVenue:${venue}`]);
  });

  it('two dances of one name at one time in two rooms stay two: the place is part of the key', () => {
    expect(keysOf(c, 'DanceEvent')).toEqual([
      'ceilidh @ 2026-10-31T20:00:00Z @ great room, 3 mill lane, cambridge',
      'ceilidh @ 2026-10-31T20:00:00Z @ small room, 3 mill lane, cambridge',
    ]);
  });

  it('a Festival and an Event with one url (one with a trailing slash) are one entity that keeps the more specific type and both statements', () => {
    const festival = { type: 'Festival', canonicalKey: 'https://halls.example/festival' };
    expect(c.entities.filter((e) => e.canonicalKey === festival.canonicalKey).map((e) => e.type)).toEqual(['Festival']);
    expect(factOf(c, 'start_date', 'schema_org', festival)?.value).toBe('2026-11-06');
    expect(factOf(c, 'event_status', 'schema_org', festival)?.value).toBe('EventScheduled');
    expect(relsOf(c, 'lists').map((r) => r.to)).toContain('Festival:https://halls.example/festival');
  });

  it('bug guard: two comedy nights linking one ticket page are not merged by that url; each is keyed by name and start', () => {
    expect(keysOf(c, 'ComedyEvent')).toEqual(['open mic @ 2026-10-05T19:00:00Z', 'open mic @ 2026-10-19T19:00:00Z']);
  });

  it('an event with no url but a sameAs is keyed by its first sameAs', () => {
    expect(keysOf(c, 'LiteraryEvent')).toEqual(['https://events.example/e/4471']);
  });
});

describe('places and people (places-and-people.html)', () => {
  const c = extractPage('places-and-people.html', 'page', 'https://halls.example/about');

  it('places without a url: two museums of one name by name and address, a windpump with only coordinates by name and geo', () => {
    expect(keysOf(c, 'Museum')).toEqual(['fen museum, 1 market square, wisbech', 'fen museum, 12 quay street, ely']);
    expect(keysOf(c, 'TouristAttraction')).toEqual(['wicken windpump, geo:52.3109,0.2917']);
  });

  it('a Restaurant and a Place with one url are one place of type Restaurant', () => {
    expect(
      c.entities.filter((e) => e.canonicalKey === 'https://millkitchen.example/').map((e) => [e.type, e.name]),
    ).toEqual([['Restaurant', 'The Mill Kitchen']]);
  });

  it('people: by url, by an @id with a path fragment (two people at one site root stay two), by sameAs, else by name', () => {
    expect(keysOf(c, 'Person')).toEqual([
      'eli park',
      'https://halls.example/#/schema/person/7f3a',
      'https://halls.example/#/schema/person/91bc',
      'https://halls.example/people/cleo',
      'https://social.example/@dev',
    ]);
  });
});

describe('type families', () => {
  it('every Event subtype is the Event family, LocalBusiness subtypes the Place family; creative works have none', () => {
    for (const type of [
      'MusicEvent',
      'TheaterEvent',
      'Festival',
      'CourseInstance',
      'EventSeries',
      'ScreeningEvent',
      'Hackathon',
    ])
      expect(typeFamily(type)).toBe('Event');
    for (const type of ['Restaurant', 'Bakery', 'MusicVenue', 'TouristAttraction', 'LocalBusiness', 'City'])
      expect(typeFamily(type)).toBe('Place');
    expect(identityType('Corporation')).toBe('Organization');
    expect(identityType('BlogPosting')).toBe('BlogPosting');
    expect(mostSpecificType(['Event', 'MusicEvent'])).toBe('MusicEvent');
    expect(mostSpecificType(['Festival', 'Event'])).toBe('Festival');
    expect(mostSpecificType(['Event'])).toBe('Event');
  });
});

describe('a byline that links its author', () => {
  const text = '<p>Owls hunt mostly at night, and their soft feathers let them fly almost without a sound.</p>';
  const post = (byline: string, url = 'https://shop.example/notes/owls') => ({
    type: 'page' as const,
    id: url,
    url,
    html: `<html><head><title>Owls at night</title></head><body><article><h1>Owls at night</h1>${byline}${text}</article></body></html>`,
    checksum: CHECKSUM,
  });
  const people = (byline: string) =>
    extractItem(post(byline), site, { receivedAt: RECEIVED })
      .entities.filter((e) => e.type === 'Person')
      .map((e) => [e.name, e.canonicalKey]);

  it('keys the person by the linked page, so the author of a post and their profile page are one Person', () => {
    const profile = {
      type: 'page' as const,
      id: 'jane',
      url: 'https://shop.example/people/jane',
      checksum: CHECKSUM,
      html: `<html><head><title>Jane Roe</title><script type="application/ld+json">${JSON.stringify({ '@context': 'https://schema.org', '@type': 'Person', name: 'Jane Roe', url: 'https://shop.example/people/jane', jobTitle: 'Bird warden' })}</script></head><body><h1>Jane Roe</h1>${text}</body></html>`,
    };
    const byline = '<p class="byline">By <a rel="author" href="/people/jane">Jane Roe</a></p>';
    expect(people(byline)).toEqual([['Jane Roe', 'https://shop.example/people/jane']]);
    const graph = buildGraphFromItems([post(byline), profile], site, { receivedAt: RECEIVED });
    try {
      expect(graph.db.prepare(`SELECT name, canonical_key FROM entities WHERE type = 'Person'`).all()).toEqual([
        { name: 'Jane Roe', canonical_key: 'https://shop.example/people/jane' },
      ]);
    } finally {
      graph.close();
    }
  });

  it('links each of several authors to their own page, and an author link in a class-marked byline too', () => {
    expect(
      people('<p class="byline">By <a href="/people/jane">Jane Roe</a> and <a href="/people/john">John Doe</a></p>'),
    ).toEqual([
      ['Jane Roe', 'https://shop.example/people/jane'],
      ['John Doe', 'https://shop.example/people/john'],
    ]);
    expect(people('<span class="author"><a href="/author/jane-roe/">Jane Roe</a></span>')).toEqual([
      ['Jane Roe', 'https://shop.example/author/jane-roe'],
    ]);
  });

  it("keys by name when the link is the website's root, the post itself, or a page two authors share", () => {
    expect(people('<p class="byline">By <a href="/">Jane Roe</a></p>')).toEqual([['Jane Roe', 'jane roe']]);
    expect(people('<p class="byline">By <a href="https://shop.example/notes/owls">Jane Roe</a></p>')).toEqual([
      ['Jane Roe', 'jane roe'],
    ]);
    expect(people('<p class="byline">By <a href="/staff">Jane Roe</a> and <a href="/staff">John Doe</a></p>')).toEqual([
      ['Jane Roe', 'jane roe'],
      ['John Doe', 'john doe'],
    ]);
  });
});

describe("a person's url that is no one's own page", () => {
  const post = (author: object) =>
    extractItem(
      {
        type: 'post',
        id: 'p',
        url: 'https://blog.example/posts/p',
        checksum: CHECKSUM,
        html: `<html><head><title>A post about harbours</title><script type="application/ld+json">${JSON.stringify({ '@context': 'https://schema.org', '@type': 'BlogPosting', headline: 'A post about harbours', author })}</script></head><body><p>Text.</p></body></html>`,
      },
      site,
      { receivedAt: RECEIVED },
    );

  it('bug: every author whose url is the team page became one Person; now each is keyed by name, the url kept as a fact', () => {
    const ana = post({ '@type': 'Person', name: 'Ana Lind', url: 'https://blog.example/company/team/' });
    const per = post({ '@type': 'Person', name: 'Per Holm', url: 'https://blog.example/company/team/' });
    expect([...keysOf(ana, 'Person'), ...keysOf(per, 'Person')]).toEqual(['ana lind', 'per holm']);
    expect(factOf(ana, 'url', 'schema_org', { type: 'Person', canonicalKey: 'ana lind' })?.value).toBe(
      'https://blog.example/company/team/',
    );
  });

  it("the website's home page identifies no author; a person's own site elsewhere does; so does a sameAs after a team page", () => {
    expect(keysOf(post({ '@type': 'Person', name: 'Ana Lind', url: 'https://blog.example/' }), 'Person')).toEqual([
      'ana lind',
    ]);
    expect(keysOf(post({ '@type': 'Person', name: 'Ana Lind', url: 'https://analind.example/' }), 'Person')).toEqual([
      'https://analind.example/',
    ]);
    expect(
      keysOf(
        post({
          '@type': 'Person',
          name: 'Ana Lind',
          url: 'https://blog.example/authors',
          sameAs: ['https://social.example/analind'],
        }),
        'Person',
      ),
    ).toEqual(['https://social.example/analind']);
  });

  it('an organization keeps its home page as its identity', () => {
    const c = post({ '@type': 'Organization', name: 'Harbour Trust', url: 'https://harbourtrust.example/' });
    expect(keysOf(c, 'Organization')).toContain('https://harbourtrust.example/');
  });
});

describe('a thing named by text where the page describes it with a url', () => {
  const page = (graph: object[]) =>
    extractItem(
      {
        type: 'post',
        id: 'p',
        url: 'https://blog.example/posts/p',
        checksum: CHECKSUM,
        html: `<html><head><title>A post about harbours</title><script type="application/ld+json">${JSON.stringify({ '@context': 'https://schema.org', '@graph': graph })}</script></head><body><p>Text.</p></body></html>`,
      },
      site,
      { receivedAt: RECEIVED },
    );
  const post = {
    '@type': 'BlogPosting',
    headline: 'A post about harbours',
    url: 'https://blog.example/posts/p',
    publisher: 'Harbour Trust',
    author: 'Ana Lind',
  };

  it('bug: the publisher by name and the Organization node with its url were two entities; now one, keyed by the url', () => {
    const c = page([
      post,
      { '@type': 'Organization', name: 'Harbour Trust', url: 'https://harbourtrust.example/about/us-and-them' },
      { '@type': 'Person', name: 'ana lind', url: 'https://analind.example/' },
    ]);
    expect(keysOf(c, 'Organization').filter((k) => k !== site.domain)).toEqual([
      'https://harbourtrust.example/about/us-and-them',
    ]);
    expect(relsOf(c, 'published_by').map((r) => r.to)).toEqual([
      'Organization:https://harbourtrust.example/about/us-and-them',
    ]);
    // Names compare as keys do (case folded): the author is the described person.
    expect(keysOf(c, 'Person')).toEqual(['https://analind.example/']);
    expect(relsOf(c, 'authored_by').map((r) => r.to)).toEqual(['Person:https://analind.example/']);
  });

  it('a cms author named by text is the described person too, in the Q&A that cites the author', () => {
    const c = extractItem(
      {
        type: 'post',
        id: 'p',
        url: 'https://blog.example/posts/p',
        checksum: CHECKSUM,
        json: { author: { name: 'Ana Lind' } },
        html: `<html><head><title>A post about harbours</title><script type="application/ld+json">${JSON.stringify({ '@context': 'https://schema.org', '@type': 'BlogPosting', headline: 'A post about harbours', author: { '@type': 'Person', name: 'Ana Lind', url: 'https://analind.example/' } })}</script></head><body><p>Text.</p></body></html>`,
      },
      site,
      { receivedAt: RECEIVED },
    );
    expect(keysOf(c, 'Person')).toEqual(['https://analind.example/']);
    const who = c.qa.find((q) => q.question.startsWith('Who wrote'));
    expect(who?.entities.filter((e) => e.type === 'Person')).toEqual([
      { type: 'Person', canonicalKey: 'https://analind.example/' },
    ]);
  });

  it('two described things of that name: which one is meant is not known, so the name stays its own entity', () => {
    const c = page([
      post,
      { '@type': 'Organization', name: 'Harbour Trust', url: 'https://a.example/trust' },
      { '@type': 'Organization', name: 'Harbour Trust', url: 'https://b.example/trust' },
    ]);
    expect(keysOf(c, 'Organization').filter((k) => k !== site.domain)).toEqual([
      'harbour trust',
      'https://a.example/trust',
      'https://b.example/trust',
    ]);
  });
});
