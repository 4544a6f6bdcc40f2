import { describe, expect, it } from 'vitest';
import { escapeXml, selectSitemapEntries, type SitemapEntry, type SitemapSource } from '../../src/compiler/sitemap.js';

/** The selection as it was, holding every url: the reference the bounded one must equal. */
function holdingEverything(sources: SitemapSource[], max: number): SitemapEntry[] {
  const byLoc = new Map<string, SitemapEntry>();
  for (const source of sources) {
    if (!/^https?:\/\//.test(source.url) || source.url.length < 12) continue;
    const entry = {
      loc: source.url,
      lastmod: source.lastSeenAt,
      importance: Math.min(5, Math.max(1, Math.round(source.importance))),
    };
    const existing = byLoc.get(entry.loc);
    if (
      existing === undefined ||
      entry.importance > existing.importance ||
      (entry.importance === existing.importance && entry.lastmod > existing.lastmod)
    )
      byLoc.set(entry.loc, entry);
  }
  const byCode = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  let entries = [...byLoc.values()];
  if (entries.length > max)
    entries = entries.sort((a, b) => b.importance - a.importance || byCode(a.loc, b.loc)).slice(0, max);
  return entries.sort((a, b) => byCode(a.loc, b.loc));
}

/** A deterministic generator (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let t = seed;
  return () => {
    t = (t + 0x6d2b79f5) | 0;
    let r = Math.imul(t ^ (t >>> 15), 1 | t);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}

function sources(seed: number, count: number, urls: number): SitemapSource[] {
  const next = random(seed);
  return Array.from({ length: count }, () => ({
    url:
      next() < 0.05
        ? `ftp://x.example/${Math.floor(next() * urls)}`
        : `https://site.example/p/${Math.floor(next() * urls)}`,
    lastSeenAt: `2026-0${1 + Math.floor(next() * 9)}-1${Math.floor(next() * 10)}T00:00:00Z`,
    importance: next() * 6,
  }));
}

describe('selectSitemapEntries', () => {
  it('keeps what the selection holding every url kept, with many duplicate urls, without holding them all', () => {
    for (const [seed, count, urls, max] of [
      [1, 2_000, 300, 50],
      [2, 2_000, 1_900, 50],
      [3, 500, 40, 50],
      [4, 5_000, 200, 150],
      [5, 3_000, 3_000, 1_000],
    ] as const) {
      const list = sources(seed, count, urls);
      expect(
        selectSitemapEntries(() => list, max),
        `seed ${seed}`,
      ).toEqual(holdingEverything(list, max));
    }
  });

  it('reads the sources again only when duplicates left it short of max', () => {
    let passes = 0;
    const unique = sources(6, 1_000, 500).map((source, i) => ({ ...source, url: `https://site.example/u/${i}` }));
    expect(selectSitemapEntries(() => (passes++, unique), 10)).toEqual(holdingEverything(unique, 10));
    expect(passes).toBe(1);
    passes = 0;
    const repeated = Array.from({ length: 30 }, () => sources(7, 30, 1_000)).flat();
    expect(selectSitemapEntries(() => (passes++, repeated), 20)).toEqual(holdingEverything(repeated, 20));
    expect(passes).toBeGreaterThan(1);
  });
});

describe('escapeXml', () => {
  it('escapes markup and encodes what XML cannot hold, and leaves other text as it is', () => {
    expect(escapeXml('https://shop.example/a?b=1&c=<d>"e"\'f\'')).toBe(
      'https://shop.example/a?b=1&amp;c=&lt;d&gt;&quot;e&quot;&apos;f&apos;',
    );
    expect(escapeXml('a\u0001b\uffffc')).toBe('a%01b%EF%BF%BFc');
    const plain = 'https://shop.example/products/ünïcödé-42';
    expect(escapeXml(plain)).toBe(plain);
  });
});
