/** The most items one merged write transaction holds (four content.ingest jobs of a full push each). */
export const MERGED_WRITE_MAX_ITEMS = 2000;

interface Waiting {
  items: number;
  write: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * The write transactions of one graph database, merged while they wait: writes submitted while
 * another runs (the next batches of a content.ingest job, other jobs of the same website) are run
 * together in the next transaction, in submission order, up to MERGED_WRITE_MAX_ITEMS items. Each
 * transaction rewrites most pages of the indexes on hashed keys whatever its size, so fewer,
 * larger transactions write far fewer bytes as the graph grows (docs/graph.md "Larger graphs").
 * Writes are merged only when they are already waiting, so a lone batch is written at once.
 *
 * A write must leave nothing behind but its rows until its transaction commits (it returns what
 * it did instead): when a merged transaction fails, it is rolled back whole and each of its writes
 * runs again in a transaction of its own, so only a write that fails alone is rejected.
 *
 * `yieldWanted`, asked between the writes of a merged transaction: true commits the writes run so
 * far and puts the others back first in line, so someone waiting for the file's write lock (an
 * ingest request, write-turn.ts) waits for one write, not for the whole merge.
 */
export class WriteQueue {
  private readonly waiting: Waiting[] = [];
  private scheduled = false;
  /** Writes run and transactions committed so far (a write run again alone counts once). */
  readonly stats = { writes: 0, transactions: 0 };

  /** Writes waiting for their transaction. */
  get waitingWrites(): number {
    return this.waiting.length;
  }

  /** `transaction` runs its callback in one write transaction (and throws what the callback throws). */
  constructor(
    private readonly transaction: (writes: () => void) => void,
    private readonly yieldWanted: () => boolean = () => false,
  ) {}

  /**
   * Runs `write` inside a write transaction, merged with the writes waiting beside it; resolves with what it returns.
   */
  write<T>(items: number, write: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ items, write, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // After the event loop's I/O: the worker answers that arrived during the last write are submitted by then.
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    const group = [this.waiting.shift()!];
    let items = group[0]!.items;
    while (this.waiting.length > 0 && items + this.waiting[0]!.items <= MERGED_WRITE_MAX_ITEMS) {
      items += this.waiting[0]!.items;
      group.push(this.waiting.shift()!);
    }
    if (this.waiting.length > 0) this.schedule();
    if (group.length > 1) {
      let values: unknown[] = [];
      try {
        this.transaction(() => {
          values = [];
          for (const w of group) {
            values.push(w.write());
            if (values.length < group.length && this.yieldWanted()) break;
          }
        });
        const left = group.splice(values.length);
        if (left.length > 0) {
          this.waiting.unshift(...left);
          this.schedule();
        }
        this.stats.writes += group.length;
        this.stats.transactions++;
        group.forEach((w, i) => w.resolve(values[i]));
        return;
      } catch {
        // Rolled back whole: each write alone, below.
      }
    }
    for (const w of group) {
      let value: unknown;
      try {
        this.transaction(() => {
          value = w.write();
        });
      } catch (error) {
        w.reject(error);
        continue;
      }
      this.stats.writes++;
      this.stats.transactions++;
      w.resolve(value);
    }
  }
}
