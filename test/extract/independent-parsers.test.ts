import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractItem } from '../../src/extract/index.js';
// A plain ES module, the measure bench/structured-coverage.mjs reports.
import { reachesContribution, statedValues } from '../../bench/lib/structured-values.mjs';
import { CHECKSUM, RECEIVED, site } from './helpers.js';

/**
 * Issue 18, checked against other projects' parsers of the standards: rdfa-streaming-parser
 * (RDFa 1.1), microdata-rdf-streaming-parser (Microdata) and the jsonld library (JSON-LD) read the
 * hand-written test pages, and what they read must reach the contribution of our own readers.
 */
const PAGES = join(import.meta.dirname, 'pages');
/** Breadcrumb links: the trail's names are its fact, its urls are not kept (docs/decisions.md). */
const NOT_KEPT = new Set(['item']);

type Stated = Record<'JSON-LD' | 'Microdata' | 'RDFa', Array<[string, string]>>;

async function readPages(): Promise<Array<{ name: string; stated: Stated; reaches: (value: string) => boolean }>> {
  const pages = [];
  for (const name of readdirSync(PAGES).filter((n) => n.endsWith('.html')).sort()) {
    const html = readFileSync(join(PAGES, name), 'utf8');
    const url = `https://pages.example/${name}`;
    const stated = (await statedValues(html, url)) as Stated;
    const c = extractItem({ type: 'page', id: name, url, html, checksum: CHECKSUM }, site, { receivedAt: RECEIVED });
    pages.push({ name, stated, reaches: reachesContribution(c) as (value: string) => boolean });
  }
  return pages;
}

describe('the test pages read by other parsers', async () => {
  const pages = await readPages();

  it.each(['Microdata', 'RDFa'] as const)('every %s value another parser reads reaches the contribution (breadcrumb links aside)', (syntax) => {
    const stated = pages.flatMap((p) => p.stated[syntax].map(([property, value]) => ({ page: p.name, property, value, reached: p.reaches(value) })));
    expect(stated.length).toBeGreaterThan(20);
    expect(stated.filter((s) => !s.reached && !NOT_KEPT.has(s.property))).toEqual([]);
  });

  it('at least 95 % of the JSON-LD values the jsonld library expands reach the contribution', () => {
    const stated = pages.flatMap((p) => p.stated['JSON-LD'].map(([, value]) => p.reaches(value)));
    expect(stated.length).toBeGreaterThan(250);
    expect(stated.filter(Boolean).length / stated.length).toBeGreaterThanOrEqual(0.95);
  });
});
