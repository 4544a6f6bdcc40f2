/**
 * The k best items of a stream under a total order, in O(n log k) time and O(k) memory: the
 * buffer grows to 2k, then is sorted and cut back to k. `compare` must be a total order (ties
 * broken by a stable id) so the result never depends on arrival order.
 */
export class TopK<T> {
  private items: T[] = [];
  private seen = 0;

  constructor(private readonly k: number, private readonly compare: (a: T, b: T) => number) {}

  push(item: T): void {
    this.seen++;
    if (this.k <= 0) return;
    this.items.push(item);
    if (this.items.length >= this.k * 2) this.trim();
  }

  /** How many items were offered in all. */
  get total(): number {
    return this.seen;
  }

  /** The best k, best first. */
  result(): T[] {
    this.trim();
    return [...this.items];
  }

  private trim(): void {
    this.items.sort(this.compare);
    if (this.items.length > this.k) this.items.length = this.k;
  }
}

/** Code-unit string order: the same on every machine and locale (localeCompare is not). */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
