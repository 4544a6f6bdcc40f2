import { raiseWalAutocheckpoint, type Db } from '../../platform/storage/index.js';

/** Quiet time after the last ingest write before the WAL is folded back into the database. */
export const IDLE_CHECKPOINT_DELAY_MS = 1_000;

export interface IdleCheckpointer {
  /** Call on every ingest request: postpones the checkpoint while ingestion is busy. */
  active(): void;
  /**
   * Call before each ingest write on `db`: raises its autocheckpoint limit once and marks it for the idle checkpoint.
   */
  willWrite(db: Db): void;
  /** Checkpoints every database written since the last checkpoint; returns how many. */
  checkpointNow(): number;
  /** Stops the timer (pending checkpoints are left to SQLite's close-time checkpoint). */
  stop(): void;
}

export interface IdleCheckpointerOptions {
  delayMs?: number;
  onError?: (error: unknown) => void;
}

/**
 * Moves WAL checkpoints of graph databases off the ingest request path: commits only append to
 * the WAL (still fsynced before the answer, so durability is unchanged) and a PASSIVE checkpoint
 * runs once ingestion has been quiet for a moment. Under sustained load SQLite's own
 * autocheckpoint, at GRAPH_WAL_AUTOCHECKPOINT_BYTES (src/platform/storage/graph-db.ts), still bounds the WAL.
 */
export function createIdleCheckpointer(options: IdleCheckpointerOptions = {}): IdleCheckpointer {
  const delayMs = options.delayMs ?? IDLE_CHECKPOINT_DELAY_MS;
  const configured = new WeakSet<Db>();
  const dirty = new Set<Db>();
  let timer: NodeJS.Timeout | undefined;
  let lastActiveAt = 0;

  const arm = (ms: number) => {
    clearTimeout(timer);
    timer = setTimeout(onTimer, ms);
    timer.unref();
  };
  const onTimer = () => {
    const quietFor = Date.now() - lastActiveAt;
    if (quietFor < delayMs) arm(delayMs - quietFor);
    else checkpointNow();
  };

  const checkpointNow = (): number => {
    clearTimeout(timer);
    timer = undefined;
    let done = 0;
    for (const db of dirty) {
      dirty.delete(db);
      if (!db.open) continue;
      try {
        // PASSIVE never waits for readers or writers; the next writer restarts a fully copied WAL.
        db.pragma('wal_checkpoint(PASSIVE)');
        done++;
      } catch (error) {
        options.onError?.(error);
      }
    }
    return done;
  };

  return {
    active() {
      lastActiveAt = Date.now();
    },
    willWrite(db) {
      if (!configured.has(db)) {
        raiseWalAutocheckpoint(db);
        configured.add(db);
      }
      dirty.add(db);
      lastActiveAt = Date.now();
      if (!timer) arm(delayMs);
    },
    checkpointNow,
    stop() {
      clearTimeout(timer);
      timer = undefined;
      dirty.clear();
    },
  };
}
