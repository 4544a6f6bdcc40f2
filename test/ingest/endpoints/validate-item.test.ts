import { describe, expect, it } from 'vitest';
import { IngestItemSchema } from '../../../src/platform/contract/ingest-item.js';
import { checkItem } from '../../../src/ingest/endpoints/validate-item.js';

const HOSTS = new Set(['shop.example']);
const CHECKSUM = 'sha256:' + 'a'.repeat(64);
const base = { type: 'product', id: 'p:1', url: 'https://shop.example/p/1', checksum: CHECKSUM, text: 'A kettle.' };
const deep = (levels: number): unknown => (levels === 0 ? 1 : { a: deep(levels - 1) });

/** Items the schema accepts (every optional field, each body kind) and refuses (each rule). */
const VALID: Array<[string, unknown]> = [
  ['text only', base],
  ['html only', { ...base, text: undefined, html: '<p>A kettle.</p>' }],
  [
    'json only, nested',
    { ...base, text: undefined, json: { price: { amount: 12.5, currency: 'EUR' }, tags: ['a', 'b'] } },
  ],
  [
    'every optional field',
    {
      ...base,
      canonical_url: 'https://shop.example/p/1?ref=x',
      title: 'Kettle',
      html: '<p>x</p>',
      json: { a: 1 },
      language: 'de-CH',
      updated_at: '2026-01-31T12:00:00Z',
      attributes: { colour: 'red' },
    },
  ],
  [
    'a json key "__proto__" as parsed JSON has it',
    JSON.parse(
      `{"type":"product","id":"p:2","url":"https://shop.example/p/2","checksum":"${CHECKSUM}","json":{"__proto__":{"x":1},"y":2}}`,
    ),
  ],
];
const INVALID: Array<[string, unknown, RegExp]> = [
  ['an unknown field', { ...base, colour: 'red' }, /unknown field colour/],
  ['no body', { ...base, text: undefined }, /at least one of html, text or json/],
  ['a bad checksum', { ...base, checksum: 'sha256:XYZ' }, /checksum/],
  ['an empty id', { ...base, id: '' }, /id: must not be empty/],
  ['a 257-character id', { ...base, id: 'x'.repeat(257) }, /id: must be at most 256/],
  ['a relative url', { ...base, url: '/p/1' }, /url: must be an absolute http\(s\) URL/],
  ['an ftp url', { ...base, url: 'ftp://shop.example/p/1' }, /url: must be an absolute http\(s\) URL/],
  ['a bad language', { ...base, language: 'english' }, /language/],
  ['a timestamp with an offset', { ...base, updated_at: '2026-01-31T12:00:00+01:00' }, /updated_at/],
  ['json nested too deep', { ...base, json: deep(70) }, /json: must nest at most/],
  ['an unknown type', { ...base, type: 'widget' }, /type/],
  ['not an object', 'kettle', /./],
];

describe('checkItem: an ingest item against the contract', () => {
  it.each(VALID)('accepts %s, as the schema does, and keeps the item exactly as sent', (_, item) => {
    expect(IngestItemSchema.safeParse(item).success).toBe(true);
    const checked = checkItem(item, HOSTS);
    expect(checked.ok).toBe(true);
    if (checked.ok) expect(JSON.stringify(checked.item)).toBe(JSON.stringify(item));
  });

  it.each(INVALID)('refuses %s, as the schema does, naming the field', (_, item, message) => {
    expect(IngestItemSchema.safeParse(item).success).toBe(false);
    const checked = checkItem(item, HOSTS);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.message).toMatch(message);
  });

  it('refuses a valid item whose url is on another host', () => {
    const checked = checkItem({ ...base, url: 'https://other.example/p/1' }, HOSTS);
    expect(checked).toMatchObject({
      ok: false,
      code: 'validation.failed',
      message: expect.stringMatching(/host other.example is not shop.example/),
    });
  });
});
