import { describe, expect, it } from 'vitest';
import { createSearchQueue } from '../../../src/output/knowledge/search-queue.js';

/**
 * The knowledge search queue (issue 36 F13): one search per turn of the event loop, so other
 * requests are answered between two searches, and at most `perCaller` places per caller.
 */

describe('the search queue', () => {
  it("a caller's search past its places is 429 quota.rate_limited; another caller still gets in", async () => {
    const queue = createSearchQueue({ perCaller: 2 });
    const first = queue.run('key:a', () => 1);
    const second = queue.run('key:a', () => 2);
    await expect(queue.run('key:a', () => 3)).rejects.toMatchObject({
      code: 'quota.rate_limited',
      status: 429,
      retryAfterSeconds: 1,
    });
    const other = queue.run('key:b', () => 4);
    expect(await Promise.all([first, second, other])).toEqual([1, 2, 4]);
    // Places are given back once a search has answered.
    expect(await queue.run('key:a', () => 5)).toBe(5);
    expect(queue.size).toBe(0);
  });

  it('gives the event loop a turn between two searches: what was queued meanwhile runs in between', async () => {
    const queue = createSearchQueue({ perCaller: 4 });
    const order: string[] = [];
    const done = [
      queue.run('key:a', () => {
        order.push('search 1');
        setImmediate(() => order.push('another request'));
      }),
      queue.run('key:a', () => void order.push('search 2')),
    ];
    expect(order).toEqual([]);
    await Promise.all(done);
    expect(order).toEqual(['search 1', 'another request', 'search 2']);
  });

  it('a failing search rejects its own caller only and frees its place', async () => {
    const queue = createSearchQueue({ perCaller: 1 });
    const failing = queue.run('key:a', () => {
      throw new Error('fts5: syntax error');
    });
    const fine = queue.run('key:b', () => 'ok');
    await expect(failing).rejects.toThrow('fts5');
    expect(await fine).toBe('ok');
    expect(await queue.run('key:a', () => 'again')).toBe('again');
  });
});
