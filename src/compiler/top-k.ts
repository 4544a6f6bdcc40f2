/**
 * The k best items of a stream under a total order, in O(n log k) time and O(k) memory: the
 * buffer grows to 2k, then is sorted and cut back to k. `compare` must be a total order (ties
 * broken by a stable id) so the result never depends on arrival order. `R` is what the order
 * reads, so a caller can ask `admits` of a raw row before it builds an item.
 */
export class TopK<T extends R, R = T> {
  private items: T[] = [];
  /** The k-th best item after the last cut: anything ranked after it can never be kept. */
  private cutoff: T | null = null;

  constructor(
    private readonly k: number,
    private readonly compare: (a: R, b: R) => number,
  ) {}

  /** Whether an item ranked like `candidate` could still be among the best k. */
  admits(candidate: R): boolean {
    return this.k > 0 && (this.cutoff === null || this.compare(candidate, this.cutoff) < 0);
  }

  push(item: T): void {
    if (!this.admits(item)) return;
    this.items.push(item);
    if (this.items.length >= this.k * 2) this.trim();
  }

  /** The best k, best first. */
  result(): T[] {
    this.trim();
    return [...this.items];
  }

  private trim(): void {
    this.items.sort(this.compare);
    if (this.items.length > this.k) this.items.length = this.k;
    this.cutoff = this.items.length === this.k ? this.items[this.k - 1]! : null;
  }
}

/** Code-unit string order: the same on every machine and locale (localeCompare is not). */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
