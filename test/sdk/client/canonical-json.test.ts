import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { computeItemChecksum } from '../../../src/platform/contract/checksum.js';
import { canonicalJson, sortKeysDeep, writeJson } from '../../../src/platform/contract/canonical-json.js';

/**
 * The recursive key sort canonicalJson replaced: the oracle its output must keep matching (checksums must not change).
 */
function recursiveSort(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(recursiveSort);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = recursiveSort(v);
    }
    return out;
  }
  return value;
}

/** A seeded generator (mulberry32), so a failure names a value that can be built again. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KEYS = [
  'a',
  'B',
  'b',
  '10',
  '9',
  '0',
  '01',
  '-1',
  '4294967295',
  'é',
  'z\u0000',
  '\ud83d\ude00',
  'key with space',
  '"quoted"',
  '',
];
const LEAVES: unknown[] = [
  null,
  true,
  false,
  0,
  -0,
  1.5,
  1e21,
  Number.NaN,
  Infinity,
  '',
  'x',
  'line\nbreak \u2028 "q" \\',
  '\ud800 lone',
  undefined,
  () => 1,
  Symbol('s'),
];

function randomValue(random: () => number, depth: number): unknown {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const r = random();
  if (depth > 5 || r < 0.4) return pick(LEAVES);
  if (r < 0.7) {
    const a = Array.from({ length: Math.floor(random() * 5) }, () => randomValue(random, depth + 1));
    if (a.length > 2 && random() < 0.2) delete a[1]; // a hole
    return a;
  }
  const o: Record<string, unknown> = {};
  for (let i = Math.floor(random() * 6); i > 0; i--) o[pick(KEYS)] = randomValue(random, depth + 1);
  return o;
}

function nested(levels: number, leaf: unknown = 1): unknown {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = i % 2 === 0 ? { b: value, a: i } : [value];
  return value;
}

describe('canonical JSON (src/platform/contract/canonical-json.ts)', () => {
  it('writes what JSON.stringify wrote over the recursive key sort, for 2,000 random values (keys, holes, undefined, functions, symbols, NaN, lone surrogates), by either writer', () => {
    const random = seeded(11);
    for (let i = 0; i < 2000; i++) {
      const value = randomValue(random, 0);
      const expected = JSON.stringify(recursiveSort(value));
      expect(canonicalJson(value), `value #${i}`).toBe(expected);
      expect(JSON.stringify(sortKeysDeep(value)), `value #${i}`).toBe(expected);
      expect(writeJson(sortKeysDeep(value)), `value #${i}`).toBe(expected);
    }
  });

  it('gives the same text on both sides of the depth where the iterative writer takes over', () => {
    for (const levels of [999, 1000, 1001, 1002, 2500]) {
      const value = nested(levels, { y: [undefined, () => 0], x: 'é' });
      expect(canonicalJson(value), `${levels} levels`).toBe(JSON.stringify(recursiveSort(value)));
    }
  });

  it('keeps the engine order of integer-like keys (numeric first), so existing checksums do not change', () => {
    expect(canonicalJson({ b: 1, 10: 2, 9: 3, a: 4, '01': 5 })).toBe('{"9":3,"10":2,"01":5,"a":4,"b":1}');
  });

  it('regression: a 10,000-level object checksums without throwing (the recursive sort threw RangeError from about 5,000 levels)', () => {
    let json: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < 10_000; i++) json = { z: i, next: json };
    const expected =
      '{"next":'.repeat(10_000) + '{"leaf":true}' + Array.from({ length: 10_000 }, (_, k) => `,"z":${k}}`).join('');
    expect(canonicalJson(json)).toBe(expected);
    const subject = { type: 'page', url: 'https://example.com/', html: null, text: null, json };
    const checksum = computeItemChecksum({ type: 'page', url: 'https://example.com/', json });
    expect(checksum).toBe('sha256:' + createHash('sha256').update(canonicalJson(subject), 'utf8').digest('hex'));
  });

  it('sorts and writes 10,000 levels of mixed arrays and objects', () => {
    const value = nested(10_000);
    expect(() => sortKeysDeep(value)).not.toThrow();
    const text = canonicalJson(value);
    expect(text.startsWith('[{"a":9998,"b":[{"a":9996,"b":[')).toBe(true);
    expect(JSON.parse(text)).toBeTypeOf('object');
  });

  it('refuses a value that contains itself with a TypeError, and accepts one object referenced twice', () => {
    const loop: Record<string, unknown> = { a: 1 };
    loop.self = { inner: loop };
    expect(() => canonicalJson(loop)).toThrow(TypeError);
    expect(() => sortKeysDeep([loop])).toThrow(/contains itself/);
    const shared = { y: 2, x: 1 };
    expect(canonicalJson({ p: shared, q: [shared, shared] })).toBe(
      '{"p":{"x":1,"y":2},"q":[{"x":1,"y":2},{"x":1,"y":2}]}',
    );
  });

  it('writes top-level leaves as JSON.stringify does and refuses a bigint as it does', () => {
    for (const leaf of [null, 1, 'a', true]) expect(canonicalJson(leaf)).toBe(JSON.stringify(leaf));
    expect(() => canonicalJson({ n: 1n })).toThrow(TypeError);
  });
});
