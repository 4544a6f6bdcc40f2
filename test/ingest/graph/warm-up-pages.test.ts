import { describe, expect, it } from 'vitest';
import { extractRows } from '../../../src/ingest/graph/extract-row.js';
import { WARM_UP_SITE, warmUpRows } from '../../../src/ingest/graph/warm-up-pages.js';

/** The predicates of each warm-up page's facts, in page order (facts are sorted by the extractor). */
function predicatesOf(first: number, count: number): string[][] {
  return extractRows(warmUpRows(first, count), WARM_UP_SITE, []).map((outcome) => {
    if (!('rows' in outcome)) throw new Error(`a warm-up page failed: ${outcome.error}`);
    return outcome.rows.facts.map((row) => row[5] as string);
  });
}

describe('warm-up pages', () => {
  it('run every common shape through the extractor, each page extracted without error', () => {
    const [product, article, event, faq, microdata, plain, text] = predicatesOf(0, 7);
    expect(product).toEqual(
      expect.arrayContaining([
        'price',
        'brand',
        'gtin',
        'sku',
        'rating_value',
        'review_body',
        'availability',
        'site_name',
      ]),
    );
    expect(article).toEqual(
      expect.arrayContaining(['author', 'date_published', 'publisher', 'headline', 'twitter_site']),
    );
    expect(event).toEqual(
      expect.arrayContaining(['start_date', 'end_date', 'location', 'address', 'organizer', 'breadcrumb']),
    );
    expect(faq).toEqual(expect.arrayContaining(['name', 'description']));
    expect(microdata).toEqual(expect.arrayContaining(['recipe_ingredient', 'total_time', 'author']));
    expect(plain).toEqual(expect.arrayContaining(['canonical_url', 'site_name', 'description']));
    expect(text).toEqual(expect.arrayContaining(['name', 'description']));
    // Seven hundred pages: none fails, as a failing one would warm the error path instead.
    expect(predicatesOf(7, 700).every((predicates) => predicates.length > 0)).toBe(true);
  });

  it('are the same pages for the same numbers, however they are asked for', () => {
    expect(warmUpRows(5, 3)).toEqual(warmUpRows(0, 10).slice(5, 8));
    expect(new Set(warmUpRows(0, 50).map((row) => row.body)).size).toBe(50);
  });
});
