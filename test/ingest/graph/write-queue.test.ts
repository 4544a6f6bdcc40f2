import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { MERGED_WRITE_MAX_ITEMS, WriteQueue } from '../../../src/ingest/graph/write-queue.js';

/** A real SQLite table and a queue whose transactions are counted. */
function setup(yieldWanted?: () => boolean) {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE rows (batch TEXT NOT NULL, n INTEGER NOT NULL CHECK (n >= 0))');
  const transactions: number[] = [];
  const queue = new WriteQueue((writes) => {
    const before = db.prepare('SELECT COUNT(*) FROM rows').pluck().get() as number;
    db.transaction(writes).immediate();
    transactions.push((db.prepare('SELECT COUNT(*) FROM rows').pluck().get() as number) - before);
  }, yieldWanted);
  const insert = (batch: string, values: number[]) => () => {
    for (const n of values) db.prepare('INSERT INTO rows (batch, n) VALUES (?, ?)').run(batch, n);
    return `${batch}:${values.length}`;
  };
  const rows = () => db.prepare('SELECT batch, n FROM rows ORDER BY rowid').raw().all();
  return { db, queue, transactions, insert, rows };
}

describe('WriteQueue', () => {
  it('writes the writes that wait at once in one transaction, in submission order, and answers each with its own value', async () => {
    const { queue, transactions, insert, rows } = setup();
    const answers = await Promise.all([
      queue.write(2, insert('a', [1, 2])),
      queue.write(1, insert('b', [3])),
      queue.write(1, insert('c', [4])),
    ]);
    expect(answers).toEqual(['a:2', 'b:1', 'c:1']);
    expect(transactions).toEqual([4]);
    expect(queue.stats).toEqual({ writes: 3, transactions: 1 });
    expect(rows()).toEqual([
      ['a', 1],
      ['a', 2],
      ['b', 3],
      ['c', 4],
    ]);
  });

  it('writes a lone write at once, in a transaction of its own', async () => {
    const { queue, transactions, insert } = setup();
    expect(await queue.write(1, insert('a', [1]))).toBe('a:1');
    expect(await queue.write(1, insert('b', [2]))).toBe('b:1');
    expect(transactions).toEqual([1, 1]);
  });

  it(`merges at most ${MERGED_WRITE_MAX_ITEMS} items into one transaction; the rest wait for the next`, async () => {
    const { queue, transactions, insert } = setup();
    const half = MERGED_WRITE_MAX_ITEMS / 2;
    await Promise.all([
      queue.write(half, insert('a', [1])),
      queue.write(half, insert('b', [2])),
      queue.write(1, insert('c', [3])),
    ]);
    expect(transactions).toEqual([2, 1]);
  });

  it('when one write of a merged transaction fails, rolls it back whole and writes the others again alone: only the failing one is rejected, nothing of it is kept', async () => {
    const { queue, transactions, insert, rows } = setup();
    let runs = 0;
    const counted = () => (runs++, insert('a', [1])());
    const results = await Promise.allSettled([
      queue.write(1, counted),
      queue.write(2, insert('bad', [2, -1])),
      queue.write(1, insert('c', [3])),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/CHECK constraint failed/);
    expect(rows()).toEqual([
      ['a', 1],
      ['c', 3],
    ]);
    // The merged attempt left nothing behind; the first write ran twice (merged, then alone) and its rows are there once.
    expect(runs).toBe(2);
    expect(transactions).toEqual([1, 1]);
    expect(queue.stats).toEqual({ writes: 2, transactions: 2 });
  });

  it('ends a merged transaction after the write under way when someone wants the turn, and writes the rest next, in order', async () => {
    let wanted = false;
    const { queue, transactions, insert, rows } = setup(() => wanted);
    const wantTurn = (write: () => string) => () => ((wanted = true), write());
    const answers = await Promise.all([
      queue.write(1, insert('a', [1])),
      queue.write(1, wantTurn(insert('b', [2]))),
      queue.write(1, () => ((wanted = false), insert('c', [3])())),
      queue.write(1, insert('d', [4])),
    ]);
    expect(answers).toEqual(['a:1', 'b:1', 'c:1', 'd:1']);
    // a and b committed once the turn was wanted after b; c (which no longer wants it) and d merged next.
    expect(transactions).toEqual([2, 2]);
    expect(queue.stats).toEqual({ writes: 4, transactions: 2 });
    expect(rows()).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', 3],
      ['d', 4],
    ]);
  });

  it('does not end a lone write early: there is nothing after it to put back', async () => {
    const { queue, transactions, insert } = setup(() => true);
    expect(await queue.write(1, insert('a', [1, 2]))).toBe('a:2');
    expect(transactions).toEqual([2]);
  });
});
