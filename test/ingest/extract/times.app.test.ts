import { describe, expect, it } from 'vitest';
import { normalizeDate, normalizeDateTime } from '../../../src/ingest/extract/normalize.js';
import { extractItem } from '../../../src/ingest/extract/index.js';
import { listValue, dateList } from '../../../src/ingest/extract/multi-value.js';
import { CHECKSUM, RECEIVED, extractPage, factOf, factsOf, readPage, site } from './helpers.js';
import { CLEAN, problemsOf, runPipeline } from './pipeline.js';

/**
 * Issue 18, times (docs/contract.md#fact-rules): the value is the
 * instant in UTC, the display the source's wall time and offset.
 */

describe('a show at 20:00 Pacific time (offset-times.html)', () => {
  const c = extractPage('offset-times.html', 'event', 'https://shop.example/events/late-show');

  it('bug: a 20:00 -07:00 start became the next day in UTC with no trace of the local time; now the display keeps it', () => {
    expect(factOf(c, 'start_date', 'schema_org')).toMatchObject({
      value: '2026-09-13T03:00:00Z',
      display: '2026-09-12T20:00:00-07:00',
    });
  });

  it('reads other spellings of an offset the same way: "23:15-0700" and an RFC 2822 date', () => {
    expect(factOf(c, 'end_date', 'schema_org')).toMatchObject({
      value: '2026-09-13T06:15:00Z',
      display: '2026-09-12T23:15:00-07:00',
    });
    expect(factOf(c, 'door_time', 'schema_org')).toMatchObject({
      value: '2026-09-13T02:00:00Z',
      display: '2026-09-12T19:00:00-07:00',
    });
  });

  it('head metadata dates keep their offset too; a UTC time and a date without a time get no display', () => {
    expect(factOf(c, 'date_published', 'seo_meta')).toMatchObject({
      value: '2026-08-20T07:15:00Z',
      display: '2026-08-20T09:15:00+02:00',
    });
    expect(factOf(c, 'date_created', 'seo_meta')).toMatchObject({
      value: '2026-08-20T03:30:00Z',
      display: '2026-08-19T23:30:00-04:00',
    });
    expect(factOf(c, 'date_modified', 'seo_meta')?.display).toBeUndefined();
    const matinee = c.facts.find(
      (f) => f.predicate === 'start_date' && f.subject.canonicalKey === 'matinee @ 2026-09-13',
    );
    expect(matinee).toMatchObject({ value: '2026-09-13' });
    expect(matinee?.display).toBeUndefined();
  });

  it('an offer bound stays an RFC 3339 UTC valid_until; the price_valid_until fact shows the local time', () => {
    expect(factOf(c, 'price', 'schema_org')).toMatchObject({ value: 30, validUntil: '2026-09-13T01:00:00Z' });
    expect(factOf(c, 'price_valid_until', 'schema_org')).toMatchObject({
      value: '2026-09-13T01:00:00Z',
      display: '2026-09-12T18:00:00-07:00',
    });
  });

  it('"When is" quotes the local wall time', () => {
    expect(c.qa.find((q) => q.question === 'When is Late show?')?.answer).toBe(
      'Late show starts 2026-09-12T20:00:00-07:00 and ends 2026-09-12T23:15:00-07:00.',
    );
  });

  it('a published node carries value and display (the node validates)', async () => {
    const item = {
      type: 'event' as const,
      id: 'late-show',
      url: 'https://shop.example/events/late-show',
      html: readPage('offset-times.html'),
      checksum: CHECKSUM,
    };
    expect(problemsOf(await runPipeline([item]))).toEqual(CLEAN);
  });
});

describe('normalizeDateTime', () => {
  it('gives a display only for an offset other than UTC, with minutes and milliseconds', () => {
    expect(normalizeDateTime('2026-03-01T10:00:00+00:00')).toEqual({ value: '2026-03-01T10:00:00Z' });
    expect(normalizeDateTime('2026-03-01T10:00:00')).toEqual({ value: '2026-03-01T10:00:00Z' });
    expect(normalizeDateTime('2026-03-01T10:00:00+05:45')).toEqual({
      value: '2026-03-01T04:15:00Z',
      display: '2026-03-01T10:00:00+05:45',
    });
    expect(normalizeDateTime('2026-03-01T10:00:00.250-03:30')).toEqual({
      value: '2026-03-01T13:30:00.250Z',
      display: '2026-03-01T10:00:00.250-03:30',
    });
    expect(normalizeDateTime('Sun, 01 Mar 2026 10:00:00 GMT')).toEqual({ value: '2026-03-01T10:00:00Z' });
    expect(normalizeDateTime('Sun Mar 01 2026 10:00:00 GMT+0100 (Central European Standard Time)')).toEqual({
      value: '2026-03-01T09:00:00Z',
      display: '2026-03-01T10:00:00+01:00',
    });
  });

  it("keeps normalizeDate's rules: out-of-range parts and offsets are dropped", () => {
    expect(normalizeDateTime('2026-03-01T10:00:00+24:00')).toBeNull();
    expect(normalizeDateTime('2026-02-30T10:00:00+01:00')).toBeNull();
    expect(normalizeDate('2026-03-01T10:00:00+01:00')).toBe('2026-03-01T09:00:00Z');
  });

  it('several dates are one {"values"} fact whose display joins their local times', () => {
    const dates = dateList(['2026-05-01T20:00:00+02:00', '2026-05-02T18:00:00Z', 'not a date']);
    expect(listValue(dates.values, dates.displays)).toEqual({
      value: { values: ['2026-05-01T18:00:00Z', '2026-05-02T18:00:00Z'] },
      display: '2026-05-01T20:00:00+02:00, 2026-05-02T18:00:00Z',
    });
  });
});

describe('publication dates under meta names without a standard', () => {
  const dated = (meta: string) =>
    extractItem(
      {
        type: 'page',
        id: 'p',
        url: 'https://shop.example/p',
        html: `<html><head><title>Harbour report</title>${meta}</head><body><p>The harbour reopened.</p></body></html>`,
        checksum: CHECKSUM,
      },
      site,
      { receivedAt: RECEIVED },
    );

  it('reads date, pubdate, publish-date, publication_date and DC.date.issued, below the standard names', () => {
    for (const name of ['date', 'pubdate', 'publish-date', 'publish_date', 'publication_date', 'DC.date.issued']) {
      expect(factOf(dated(`<meta name="${name}" content="2024-03-05">`), 'date_published', 'seo_meta')?.value).toBe(
        '2024-03-05',
      );
    }
    expect(
      factOf(dated('<meta name="date" content="Tue, 05 Mar 2024 10:00:00 GMT">'), 'date_published', 'seo_meta')?.value,
    ).toBe('2024-03-05T10:00:00Z');
    const both = dated(
      '<meta name="date" content="2024-01-01"><meta property="article:published_time" content="2024-03-05T10:00:00Z">',
    );
    const [survivor] = factsOf(both, 'date_published').sort((a, b) => b.confidence - a.confidence);
    expect(survivor?.value).toBe('2024-03-05T10:00:00Z');
  });

  it('never reads a date that is ambiguous or no date', () => {
    expect(factOf(dated('<meta name="date" content="03/05/2024">'), 'date_published', 'seo_meta')).toBeUndefined();
    expect(factOf(dated('<meta name="date" content="today">'), 'date_published', 'seo_meta')).toBeUndefined();
  });
});
