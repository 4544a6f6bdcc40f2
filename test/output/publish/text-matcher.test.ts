import { describe, expect, it } from 'vitest';
import { patternsOf, skeletonOf, TextMatcher } from '../../../src/output/publish/text-matcher.js';

const matcherOf = (...texts: string[]) => new TextMatcher(texts.flatMap(patternsOf));
const has = (m: TextMatcher, body: string) => m.matches(Buffer.from(body, 'utf8'));

describe('TextMatcher (the erasure purge looks for erased text with it)', () => {
  it('finds a text however a node file writes it: JSON, markdown and XML escaped, whitespace collapsed, percent-encoded', () => {
    const m = matcherOf('Mallory "M" O\'Brien_Smith <ceo> & co', 'https://example.com/über uns (team)');
    expect(has(m, JSON.stringify({ name: 'Mallory "M" O\'Brien_Smith <ceo> & co' }))).toBe(true);
    expect(has(m, '## Mallory "M" O\'Brien\\_Smith \\<ceo\\> \\& co\n')).toBe(true);
    expect(has(m, '<loc>Mallory &quot;M&quot; O&apos;Brien_Smith &lt;ceo&gt; &amp; co</loc>')).toBe(true);
    expect(has(m, '- [Team](https://example.com/%C3%BCber%20uns%20%28team%29)')).toBe(true);
    expect(has(m, 'Mallory  "M"\n  O\'Brien_Smith\n<ceo> & co')).toBe(true);
    expect(has(m, 'Eve Example, https://example.com/ueber')).toBe(false);
  });

  it('finds an excerpt of a long text (any 128 bytes of it), and not a text shorter than 6 letters', () => {
    const long = Array.from({ length: 40 }, (_, i) => `sentence ${i} of a long page about kettles.`).join(' ');
    const m = matcherOf(long, 'Bob');
    expect(has(m, `summary: ${long.slice(300, 460)}…`)).toBe(true);
    expect(has(m, `summary: ${long.slice(300, 340)}…`)).toBe(false);
    expect(has(m, 'Bob wrote this')).toBe(false);
  });

  it('agrees with a plain substring search on random text', () => {
    let seed = 7;
    const rand = (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
    const alphabet = 'abcdefgh ';
    const text = Array.from({ length: 20_000 }, () => alphabet[rand(alphabet.length)]).join('');
    // Half the patterns are cut from the text (with its spaces), half are random letters.
    const patterns = Array.from({ length: 200 }, (_, i) => {
      const len = 6 + rand(90);
      if (i % 2 === 0) {
        const at = rand(text.length - len);
        return text.slice(at, at + len);
      }
      return Array.from({ length: len }, () => alphabet[rand(8)]).join('');
    });
    const m = new TextMatcher(patterns.map((p) => skeletonOf(Buffer.from(p))));
    const skeleton = skeletonOf(Buffer.from(text)).toString();
    const expected = new Set(m.patterns.flatMap((p, i) => (skeleton.includes(p.toString()) ? [i] : [])));
    expect(m.matchesIn(Buffer.from(text))).toEqual(expected);
    expect(expected.size).toBeGreaterThan(0);
  });
});
