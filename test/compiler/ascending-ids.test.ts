import { describe, expect, it } from 'vitest';
import { AscendingIds } from '../../src/compiler/ascending-ids.js';

describe('AscendingIds', () => {
  it('finds exactly the ids added, at every position', () => {
    const ids = new AscendingIds();
    const added = Array.from({ length: 1000 }, (_, i) => `fact_${(i * 2).toString(16).padStart(8, '0')}`);
    for (const id of added) ids.add(id);
    for (const id of added) expect(ids.has(id)).toBe(true);
    for (let i = -1; i < 2001; i += 2)
      expect(ids.has(`fact_${i < 0 ? '' : i.toString(16).padStart(8, '0')}`)).toBe(false);
    expect(ids.has('fact_zzz')).toBe(false);
    expect(new AscendingIds().has('fact_00000000')).toBe(false);
  });

  it('refuses an id that is not after the last one', () => {
    const ids = new AscendingIds();
    ids.add('fact_b');
    expect(() => ids.add('fact_b')).toThrow(/ascending/);
    expect(() => ids.add('fact_a')).toThrow(/ascending/);
  });
});
