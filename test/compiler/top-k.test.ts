import { describe, expect, it } from 'vitest';
import { compareStrings, TopK } from '../../src/compiler/top-k.js';

interface Item {
  rank: number;
  id: string;
}
const compare = (a: Item, b: Item) => b.rank - a.rank || compareStrings(a.id, b.id);

describe('TopK', () => {
  it('keeps exactly the k best of a long stream, whatever the arrival order', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const items = Array.from({ length: 5000 }, (_, i) => ({
      rank: Math.floor(random() * 6),
      id: `id_${String(i).padStart(5, '0')}`,
    }));
    for (const order of [items, [...items].reverse(), [...items].sort(() => random() - 0.5)]) {
      const top = new TopK<Item>(100, compare);
      for (const item of order) top.push(item);
      expect(top.result()).toEqual([...items].sort(compare).slice(0, 100));
    }
  });

  it('admits a candidate only while it can still rank among the k best', () => {
    const top = new TopK<Item>(2, compare);
    expect(top.admits({ rank: 0, id: 'z' })).toBe(true);
    for (const id of ['a', 'b', 'c', 'd']) top.push({ rank: 3, id });
    top.result();
    expect(top.admits({ rank: 3, id: 'c' })).toBe(false);
    expect(top.admits({ rank: 3, id: 'a0' })).toBe(true);
    expect(top.admits({ rank: 4, id: 'z' })).toBe(true);
    expect(new TopK<Item>(0, compare).admits({ rank: 5, id: 'a' })).toBe(false);
  });
});
