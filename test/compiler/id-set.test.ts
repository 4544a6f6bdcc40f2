import { describe, expect, it } from 'vitest';
import { formatStableId, IdColumn, IdListColumn, IdSet, parseStableId } from '../../src/compiler/id-set.js';
import { FactKeys } from '../../src/compiler/validate/scan-file.js';

const hex24 = (n: number) => n.toString(16).padStart(24, '0');

describe('IdSet', () => {
  it('answers as a Set of the same strings, stable ids and any other', () => {
    const ids = new IdSet();
    const reference = new Set<string>();
    const added = [
      ...Array.from({ length: 5000 }, (_, i) => `fact_${hex24(i * 7919)}`),
      ...Array.from({ length: 300 }, (_, i) => `entity_${hex24(i)}`),
      'rel_0123456789abcdef01234567',
      'qa_deadbeefdeadbeefdeadbeef',
      'x_0123456789ABCDEF01234567', // uppercase hex: not a stable id spelling, kept as a string
      'fact_0123', // too short
      '_0123456789abcdef01234567', // no prefix
      'entity_0123456789abcdef0123456g',
      '',
      'fact_ü123456789abcdef01234567',
    ];
    for (const id of added) {
      ids.add(id);
      reference.add(id);
    }
    expect(ids.size).toBe(reference.size);
    for (const id of added) expect(ids.has(id), id).toBe(true);
    const absent = [
      `fact_${hex24(1)}`,
      `fact_${hex24(5001 * 7919)}`,
      `entity_${hex24(300)}`,
      `chunk_${hex24(0)}`, // a prefix never added
      'x_0123456789abcdef01234567', // the lowercase spelling of an uppercase id added
      'fact_0124',
      'entity_0123456789abcdef01234567',
      'rel_0123456789abcdef01234566',
    ];
    for (const id of absent) expect(ids.has(id), id).toBe(reference.has(id));
    ids.add(`fact_${hex24(0)}`); // again: no second entry
    expect(ids.size).toBe(reference.size);
  });

  it('tells apart ids that differ in one word only, and the same bits under two prefixes', () => {
    const ids = new IdSet();
    ids.add('fact_000000000000000000000001');
    ids.add('fact_000000010000000000000000');
    ids.add('src_000000000000000000000001');
    expect(ids.has('fact_000000000000000000000000')).toBe(false);
    ids.add('fact_000000000000000000000000'); // all zero bits: the value an empty slot has
    expect(ids.has('fact_000000000000000000000000')).toBe(true);
    expect(ids.has('src_000000000000000000000000')).toBe(false);
    expect(ids.has('fact_000000000000000100000000')).toBe(false);
    expect(ids.has('src_000000010000000000000000')).toBe(false);
    expect(ids.has('entity_000000000000000000000001')).toBe(false);
    expect(ids.size).toBe(4);
  });
});

describe('IdSet in any order', () => {
  it('answers as a Set whether ids come ascending, in several ascending files, descending or in no order, and says which were new', () => {
    const ids = new IdSet();
    const reference = new Set<string>();
    const add = (id: string) => {
      expect(ids.addNew(id), id).toBe(!reference.has(id));
      reference.add(id);
    };
    let seed = 1;
    const random = () => (seed = (Math.imul(seed, 48271) >>> 0) % 2147483647);
    // Twelve ascending files (more than a set keeps runs for), each overlapping the others, then ids in no order and descending ones.
    for (let file = 0; file < 12; file++) for (let i = 0; i < 3000; i++) add(`fact_${hex24(i * 977 + file * 131)}`);
    for (let i = 0; i < 3000; i++) add(`fact_${random().toString(16).padStart(8, '0')}${hex24(random()).slice(8)}`);
    for (let i = 3000; i > 0; i--) add(`fact_${hex24(i * 13)}`);
    add('fact_000000000000000000000000');
    add('fact_ffffffffffffffffffffffff');
    add('fact_0123'); // not a stable id spelling: kept as a string
    add('fact_0123');
    expect(ids.size).toBe(reference.size);
    for (const id of reference) expect(ids.has(id), id).toBe(true);
    for (let i = 0; i < 5000; i++) {
      const probe = `fact_${hex24(i * 7 + 1)}`;
      expect(ids.has(probe), probe).toBe(reference.has(probe));
    }
  });
});

describe('IdSet of evenly spread ids', () => {
  it('finds every id of a long ascending run and none between them, at its ends or outside', () => {
    let seed = 7;
    const random = () => (seed = (Math.imul(seed, 48271) >>> 0) % 2147483647);
    const word = () => random().toString(16).padStart(8, '0').slice(-8);
    const sorted = [...new Set(Array.from({ length: 20000 }, () => `${word()}${word()}${word()}`))].sort();
    const ids = new IdSet();
    for (const hex of sorted) ids.add(`chunk_${hex}`);
    expect(ids.size).toBe(sorted.length);
    for (const hex of sorted) expect(ids.has(`chunk_${hex}`), hex).toBe(true);
    const present = new Set(sorted);
    for (const hex of [
      ...sorted.map((h) => h.slice(0, 23) + (h[23] === '0' ? '1' : '0')),
      '0'.repeat(24),
      'f'.repeat(24),
    ])
      expect(ids.has(`chunk_${hex}`), hex).toBe(present.has(hex));
  });
});

describe('IdColumn', () => {
  it('gives back every value as it was pushed, stable ids and others alike', () => {
    const column = new IdColumn();
    const values: unknown[] = [];
    for (let i = 0; i < 2000; i++)
      values.push(
        i % 7 === 0
          ? undefined
          : i % 11 === 0
            ? { not: 'an id' }
            : i % 13 === 0
              ? 'FACT_0123456789abcdef01234567'
              : `${['fact', 'entity', 'src'][i % 3]}_${hex24(i * 104729)}`,
      );
    values.push(null, 42, ['entity_0123456789abcdef01234567'], 'src_ffffffffffffffffffffffff');
    for (const value of values) column.push(value);
    expect(column.length).toBe(values.length);
    values.forEach((value, k) => expect(column.get(k)).toEqual(value));
  });
});

describe('IdListColumn', () => {
  it('gives back every value as it was pushed: arrays of ids (empty ones too) and any other value', () => {
    const column = new IdListColumn();
    const values: unknown[] = [];
    for (let i = 0; i < 2000; i++)
      values.push(
        i % 5 === 0
          ? []
          : i % 7 === 0
            ? undefined
            : i % 11 === 0
              ? 'entity_0123456789abcdef01234567'
              : Array.from({ length: i % 4 }, (_, j) =>
                  j === 2 ? { not: 'an id' } : `${['fact', 'entity'][j % 2]}_${hex24(i * 7919 + j)}`,
                ),
      );
    values.push(null, 42, ['FACT_0123456789abcdef01234567', null], ['chunk_ffffffffffffffffffffffff']);
    for (const value of values) column.push(value);
    expect(column.length).toBe(values.length);
    values.forEach((value, k) => expect(column.get(k)).toEqual(value));
  });
});

describe('parseStableId and formatStableId', () => {
  it('are each other’s inverse on stable ids and refuse other spellings', () => {
    const words = new Uint32Array(3);
    const id = 'chunk_ffffffff00000000a1b2c3d4';
    const cut = parseStableId(id, words);
    expect(cut).toBe(5);
    expect(formatStableId(id.slice(0, cut), words[0]!, words[1]!, words[2]!)).toBe(id);
    for (const other of [
      'chunk-ffffffff00000000a1b2c3d4',
      'chunk_ffffffff00000000a1b2c3d',
      'chunk_Ffffffff00000000a1b2c3d4',
    ])
      expect(parseStableId(other, words)).toBe(-1);
  });
});

describe('FactKeys', () => {
  it('answers as a Set of the joined keys, NULs inside a part included', () => {
    const keys = new FactKeys();
    const reference = new Set<string>();
    const added = [
      'entity_0123456789abcdef01234567\u0000price\u0000en',
      'entity_0123456789abcdef01234567\u0000price\u0000de',
      'entity_0123456789abcdef01234568\u0000price\u0000en',
      'Espresso grinder\u0000price\u0000en',
      's\u0000p\u0000q\u0000en', // a subject with a NUL, or a predicate with one: the same joined key
      'no nul at all',
      '\u0000x',
    ];
    for (const key of [...added, ...added.slice(0, 3)]) {
      expect(keys.addNew(key), JSON.stringify(key)).toBe(!reference.has(key));
      reference.add(key);
    }
    for (const key of [
      ...added,
      's\u0000p\u0000q\u0000de',
      'entity_0123456789abcdef01234567\u0000name\u0000en',
      'Espresso grinder\u0000price\u0000de',
      'no nul',
      '\u0000',
      '',
    ])
      expect(keys.has(key), JSON.stringify(key)).toBe(reference.has(key));
  });

  it('takes a key as its parts as it takes the joined key, when neither subject nor predicate holds a NUL', () => {
    const keys = new FactKeys();
    expect(keys.addNew('entity_0123456789abcdef01234567\u0000price\u0000en')).toBe(true);
    expect(keys.addNewParts('entity_0123456789abcdef01234567', '\u0000price\u0000en')).toBe(false);
    expect(keys.addNewParts('entity_0123456789abcdef01234567', '\u0000price\u0000de')).toBe(true);
    expect(keys.has('entity_0123456789abcdef01234567\u0000price\u0000de')).toBe(true);
    expect(keys.addNewParts('Espresso grinder', '\u0000price\u0000en')).toBe(true);
    expect(keys.addNew('Espresso grinder\u0000price\u0000en')).toBe(false);
  });
});
