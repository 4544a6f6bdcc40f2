import { describe, expect, it } from 'vitest';
import { buildChunks } from '../../../src/ingest/extract/chunks.js';
import { extractItem } from '../../../src/ingest/extract/index.js';
import { CHECKSUM, RECEIVED, site } from './helpers.js';

/** A chunk's mentions: every entity whose name occurs in it as whole words, case-insensitive, in (type, key) order. */
const text = (t: string) => [{ kind: 'text' as const, level: 0, tag: 'p', text: t }];
const person = (name: string) => ({ ref: { type: 'Person', canonicalKey: name.toLowerCase() }, name });
const SENTENCE =
  'Person Number7 met person number42. Person Number100x is glued, and so is APerson Number3; (Person Number99) closes.';

describe('chunk mentions', () => {
  const expected = ['person number42', 'person number7', 'person number99'].map((canonicalKey) => ({
    type: 'Person',
    canonicalKey,
  }));

  it('a few names are searched for directly', () => {
    const few = [7, 42, 99, 3, 100].map((i) => person(`Person Number${i}`));
    expect(buildChunks(text(SENTENCE), 'en', few)[0]!.mentions).toEqual(expected);
  });

  it('many names (past the direct search) are found by their longest word, with the same result', () => {
    const many = Array.from({ length: 500 }, (_, i) => person(`Person Number${i}`));
    expect(buildChunks(text(SENTENCE), 'en', many)[0]!.mentions).toEqual(expected);
  });

  it('a name of no letters or digits is still searched for when there are many names', () => {
    const many = [
      ...Array.from({ length: 100 }, (_, i) => person(`Person Number${i}`)),
      { ref: { type: 'Thing', canonicalKey: '+++' }, name: '+++' },
    ];
    expect(buildChunks(text('Ratings: +++ for Person Number5.'), 'en', many)[0]!.mentions).toEqual([
      { type: 'Person', canonicalKey: 'person number5' },
      { type: 'Thing', canonicalKey: '+++' },
    ]);
  });

  it('bug: a page of 20,000 described people searched every chunk for every name (seconds); each chunk now mentions the people it names', () => {
    const people = Array.from(
      { length: 20_000 },
      (_, i) =>
        `<div itemscope itemtype="https://schema.org/Person"><span itemprop="name">Person Number${i}</span></div>`,
    ).join('');
    const c = extractItem(
      {
        type: 'page',
        id: 'p',
        url: 'https://n.example/p',
        html: `<html><head><title>Everyone on our team</title></head><body>${people}</body></html>`,
        checksum: CHECKSUM,
      },
      site,
      { receivedAt: RECEIVED },
    );
    expect(c.entities.filter((e) => e.type === 'Person')).toHaveLength(20_000);
    const first = c.chunks[0]!;
    expect(first.mentions.length).toBeGreaterThan(10);
    for (const m of first.mentions) expect(first.text.toLowerCase()).toContain(m.canonicalKey);
  });
});
