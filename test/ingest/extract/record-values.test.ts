import { describe, expect, it } from 'vitest';
import { normalizeDate, normalizeLanguage } from '../../../src/ingest/extract/normalize.js';
import {
  isSnakeCase,
  websiteHosts,
  toHttpUrl,
  toPredicate,
  toWebsiteUrl,
  toTypeName,
} from '../../../src/ingest/extract/record-values.js';
import {
  DateOrTimestampSchema,
  FactRecordSchema,
  HttpUrlSchema,
  LanguageSchema,
  RelationshipRecordSchema,
} from '../../../src/platform/node-format/index.js';
import { DATES, LABELS, mulberry32, URLS } from './odd-items.js';

/** Random strings over an alphabet of the characters that matter here. */
function strings(seed: number, count: number): string[] {
  const r = mulberry32(seed);
  const alphabet = [
    'a',
    'z',
    'A',
    'Z',
    '0',
    '9',
    '_',
    '-',
    '.',
    ' ',
    '§',
    'é',
    'ß',
    '価',
    'Ц',
    '\u200b',
    '\u0301',
    '/',
    ':',
    '#',
    '?',
    '😀',
    'İ',
    'ﬁ',
    '\t',
  ];
  return Array.from({ length: count }, () =>
    Array.from({ length: Math.floor(r() * 12) }, () => alphabet[Math.floor(r() * alphabet.length)]).join(''),
  );
}

describe('toPredicate: the snake_case predicate of a label', () => {
  it.each([
    ['Opening Hours', 'opening_hours'],
    ['Größe', 'grosse'],
    ['Œuvre', 'oeuvre'],
    ['Naïve café', 'naive_cafe'],
    ['colour:', 'colour'],
    ['eMail', 'e_mail'],
    ['3D print', 'field_3d_print'],
    ['4K', 'field_4k'],
    ['ﬁle size', 'file_size'],
    ['ＡＢＣ', 'abc'],
    ['constructor', 'constructor'],
    ['__proto__', 'proto'],
    ['SKU', 'sku'],
    ['İstanbul', 'istanbul'],
    ['Price\u200b', 'price'],
    ['😀 emoji', 'emoji'],
  ])('%j -> %s', (label, predicate) => {
    expect(toPredicate(label)).toBe(predicate);
  });

  it.each(['4.1.6', '§ 12', '', ' ', '—', '###', '100%', '①', '価格', 'Цена (USD)', 'السعر', 'מחיר'])(
    '%j has none (no letter, or a letter with no ASCII form)',
    (label) => {
      expect(toPredicate(label)).toBeNull();
    },
  );

  it('gives only predicates the fact and relationship schemas accept, for any label', () => {
    for (const label of [...LABELS, ...strings(1, 2000)]) {
      const predicate = toPredicate(label);
      if (predicate === null) continue;
      expect(FactRecordSchema.shape.predicate.safeParse(predicate).success, label).toBe(true);
      expect(RelationshipRecordSchema.shape.type.safeParse(predicate).success, label).toBe(true);
    }
  });

  it('isSnakeCase agrees with the schemas on every string', () => {
    for (const value of [...LABELS, ...strings(2, 2000), 'a', 'a_1', '_a', '1a', 'A', 'a-b', 'a\n']) {
      expect(isSnakeCase(value), JSON.stringify(value)).toBe(FactRecordSchema.shape.predicate.safeParse(value).success);
    }
  });
});

describe('toTypeName: the schema.org type a @type names', () => {
  it.each([
    ['Product', 'Product'],
    ['https://schema.org/Product', 'Product'],
    ['http://schema.org/Event#', null],
    ['schema:Event', 'Event'],
    ['product', 'Product'],
    [' NewsArticle ', 'NewsArticle'],
    ['https://schema.org/', null],
    ['', null],
    ['Product?x', null],
    ['価格', null],
    ['A'.repeat(101), null],
    ['og:article', 'Article'],
  ])('%j -> %s', (value, type) => {
    expect(toTypeName(value)).toBe(type);
  });
});

describe('toHttpUrl and toWebsiteUrl: urls as node records accept them', () => {
  it('keeps a url as written when the node accepts it, else its WHATWG form, else null', () => {
    expect(toHttpUrl('https://shop.example')).toBe('https://shop.example');
    expect(toHttpUrl('https://shop.example/価格')).toBe('https://shop.example/価格');
    expect(toHttpUrl('HTTP://SHOP.EXAMPLE/A b')).toBe('http://shop.example/A%20b');
    expect(toHttpUrl('https:\\\\shop.example\\x')).toBe('https://shop.example/x');
    expect(toHttpUrl('https://shop.example/a\u0000b')).toBe('https://shop.example/a%00b');
    for (const bad of [
      'javascript:alert(1)',
      'mailto:a@b.example',
      '/relative',
      'http://',
      'http://[::1',
      'ftp://x.example/',
      '',
      'https://shop.example/' + 'a '.repeat(2040),
    ]) {
      expect(toHttpUrl(bad), bad).toBeNull();
    }
  });

  it('gives only urls the node schema accepts', () => {
    for (const value of [
      ...URLS,
      ...strings(3, 500).map((s) => 'https://shop.example/' + s),
      ...strings(4, 500).map((s) => 'http:' + s),
    ]) {
      const url = toHttpUrl(value);
      if (url !== null) expect(HttpUrlSchema.safeParse(url).success, value).toBe(true);
    }
  });

  it('toWebsiteUrl keeps a url only on the website domain or an alias', () => {
    const hosts = websiteHosts({ domain: 'Shop.Example.', aliases: ['www.shop.example', 'bücher.example'] });
    expect(toWebsiteUrl('https://shop.example/a', hosts)).toBe('https://shop.example/a');
    expect(toWebsiteUrl('HTTPS://WWW.SHOP.EXAMPLE/a b', hosts)).toBe('https://www.shop.example/a%20b');
    expect(toWebsiteUrl('https://bücher.example/x', hosts)).toBe('https://bücher.example/x');
    expect(toWebsiteUrl('https://other.example/a', hosts)).toBeNull();
    expect(toWebsiteUrl('https://shop.example.evil.example/', hosts)).toBeNull();
  });
});

describe('dates and languages as node records accept them', () => {
  it.each([
    ['2024-02-30', null],
    ['2024-13-45', null],
    ['2023-02-29', null],
    ['2024-02-29', '2024-02-29'],
    ['2024-02-30T10:00:00Z', null],
    ['2024-06-25T25:00:00Z', null],
    ['2024-06-25T10:61:00Z', null],
    ['2024-06-25T10:00:00+24:00', null],
    ['9999-12-31T23:59:59-05:00', null],
    ['Tue, 25 Jun 275760 10:00:00 GMT', null],
    ['0000-01-01T00:00:00Z', '0000-01-01T00:00:00Z'],
    ['0099-06-01T12:00:00+01:00', '0099-06-01T11:00:00Z'],
    ['2024-06-25T10:00:00+02:00', '2024-06-25T08:00:00Z'],
    ['Tue, 25 Jun 2024 10:00:00 GMT', '2024-06-25T10:00:00Z'],
    ['2024-06-25T10:00:00.120Z', '2024-06-25T10:00:00.120Z'],
  ])('normalizeDate(%j) -> %s', (value, date) => {
    expect(normalizeDate(value)).toBe(date);
  });

  it('normalizeDate gives only what valid_from and valid_until accept', () => {
    const r = mulberry32(5);
    const digits = (n: number) => Array.from({ length: n }, () => Math.floor(r() * 10)).join('');
    const generated = Array.from(
      { length: 2000 },
      () =>
        `${digits(4)}-${digits(2)}-${digits(2)}${r() < 0.7 ? `T${digits(2)}:${digits(2)}:${digits(2)}${r() < 0.5 ? 'Z' : `+${digits(2)}:${digits(2)}`}` : ''}`,
    );
    for (const value of [...DATES, ...generated]) {
      const date = normalizeDate(value);
      if (date !== null) expect(DateOrTimestampSchema.safeParse(date).success, value).toBe(true);
    }
  });

  it('normalizeLanguage gives only BCP-47 tags the language field accepts', () => {
    for (const value of [
      ...strings(6, 2000),
      'en_US.UTF-8',
      'zh_hant_tw',
      'de-CH-1996',
      'x-klingon',
      'i-default',
      '123',
      'EN-us',
      'es-419',
    ]) {
      const tag = normalizeLanguage(value);
      if (tag !== null) expect(LanguageSchema.safeParse(tag).success, value).toBe(true);
    }
    expect(normalizeLanguage('en_US.UTF-8')).toBe('en-US');
    expect(normalizeLanguage('english')).toBeNull();
  });
});
