import { describe, expect, it } from 'vitest';
import { SourceTable } from '../../src/compiler/source-table.js';

const hex24 = (n: number) => n.toString(16).padStart(24, '0');

describe('SourceTable', () => {
  it('answers as a Map of the same sources, in the order added, whatever the ids are spelled like', () => {
    const table = new SourceTable();
    const reference = new Map<string, { url: string; lastSeenAt: string }>();
    const ids = [
      'page-1', // not a stable id
      ...Array.from({ length: 3000 }, (_, i) => `src_${hex24(i * 7919 + 1)}`),
      'src_zzzz', // after them in code-unit order, not a stable id
      'srd_000000000000000000000001', // another prefix
    ];
    ids.forEach((id, i) => {
      const entry = {
        url: `https://example.com/p/${i}/ü${'x'.repeat(i % 50)}`,
        lastSeenAt: `2026-01-0${1 + (i % 9)}T00:00:00Z`,
      };
      table.add(id, entry);
      reference.set(id, entry);
    });
    expect(table.size).toBe(reference.size);
    for (const [id, entry] of reference) {
      expect(table.has(id)).toBe(true);
      expect(table.get(id)).toEqual(entry);
    }
    for (const id of [
      'src_' + hex24(0),
      'src_' + hex24(2),
      'page-2',
      'src_' + hex24(3000 * 7919 + 1),
      'srd_' + hex24(2),
    ])
      expect([table.has(id), table.get(id)]).toEqual([false, undefined]);
    expect([...table.entries()].map(({ url, lastSeenAt }) => ({ url, lastSeenAt }))).toEqual([...reference.values()]);
  });

  it('keeps the highest importance raised, 1 until then, and only for its sources', () => {
    const table = new SourceTable();
    table.add('src_000000000000000000000001', { url: 'https://a.example/', lastSeenAt: 't' });
    table.add('src_000000000000000000000002', { url: 'https://b.example/', lastSeenAt: 't' });
    expect(table.raiseImportance('src_000000000000000000000002', 4)).toBe(true);
    expect(table.raiseImportance('src_000000000000000000000002', 2)).toBe(true);
    expect(table.raiseImportance('src_000000000000000000000003', 5)).toBe(false);
    expect([...table.entries()].map((e) => e.importance)).toEqual([1, 4]);
  });
});
