import type { Db } from '../../platform/storage/index.js';

/**
 * Whose turn it is to write one graph file, between the daemon's event loop and the graph writer
 * thread (graph-writer.ts). SQLite's write lock alone would do for correctness, but better-sqlite3
 * waits for it synchronously: a write of the event loop (a job moving items from the inbox, a
 * delete) arriving while the writer commits a long transaction would stall the event loop that
 * long, and could wait through several transactions in a row. So the two take turns through shared memory first, and the event loop has priority:
 * it says it wants to write, then waits without blocking (Atomics.waitAsync) until the writer is
 * between transactions; the writer starts a transaction only while nobody on the event loop
 * wants to write. Each side announces itself before it looks at the other (sequentially
 * consistent atomics), so both cannot go ahead at once.
 */
export type WriteTurn = Int32Array;

/** Slots: writes waiting or running on the event loop (a count), and 1 while the writer thread is in a transaction. */
const LOOP = 0;
const WRITER = 1;

/**
 * Atomics.waitAsync, in Node since 16; TypeScript types it only from lib ES2024, whose other additions Node 20 lacks.
 */
const waitAsync = (
  Atomics as unknown as {
    waitAsync(
      array: Int32Array,
      index: number,
      value: number,
    ): { async: false; value: string } | { async: true; value: Promise<string> };
  }
).waitAsync;

export function newWriteTurn(): WriteTurn {
  return new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));
}

const turns = new WeakMap<Db, WriteTurn>();

/** The turn of the graph file `db` is open on, made when a writer thread is first given that file. */
export function writeTurnOf(db: Db): WriteTurn {
  let turn = turns.get(db);
  if (turn === undefined) turns.set(db, (turn = newWriteTurn()));
  return turn;
}

/**
 * Runs `write` (synchronous SQLite writes on `db`, from the event loop) once no writer thread is
 * in a transaction on the file, and keeps the writer out until it returns. A file no writer
 * thread was given runs it at once.
 */
export async function withWriteTurn<T>(db: Db, write: () => T): Promise<T> {
  const turn = turns.get(db);
  if (turn === undefined) return write();
  Atomics.add(turn, LOOP, 1);
  try {
    for (;;) {
      const waited = waitAsync(turn, WRITER, 1);
      if (!waited.async) break;
      await waited.value;
    }
    return write();
  } finally {
    Atomics.sub(turn, LOOP, 1);
    Atomics.notify(turn, LOOP);
  }
}

/** The writer thread's side: returns once it may start a transaction (it then holds the turn until endWriterTurn). */
export function beginWriterTurn(turn: WriteTurn): void {
  for (;;) {
    Atomics.store(turn, WRITER, 1);
    const waiting = Atomics.load(turn, LOOP);
    if (waiting === 0) return;
    endWriterTurn(turn);
    Atomics.wait(turn, LOOP, waiting);
  }
}

/** The writer thread's side: whether the event loop is waiting to write (it should end its transaction soon). */
export function loopWantsTurn(turn: WriteTurn): boolean {
  return Atomics.load(turn, LOOP) > 0;
}

export function endWriterTurn(turn: WriteTurn): void {
  Atomics.store(turn, WRITER, 0);
  Atomics.notify(turn, WRITER);
}
