/**
 * The ids of one .jsonl file, which arrive in ascending order, kept as a sorted array: an append
 * costs far less than a Set insert (a large node exports 800,000 facts, and only the Q&A look
 * any up), and a lookup is a binary search. Order is code-unit order, as JsonlWriter checks it.
 */
export class AscendingIds {
  private readonly ids: string[] = [];

  add(id: string): void {
    const last = this.ids[this.ids.length - 1];
    if (last !== undefined && id <= last) throw new Error(`ids out of ascending order: ${last} then ${id}`);
    this.ids.push(id);
  }

  has(id: string): boolean {
    let low = 0;
    let high = this.ids.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const candidate = this.ids[middle]!;
      if (candidate === id) return true;
      if (candidate < id) low = middle + 1;
      else high = middle - 1;
    }
    return false;
  }
}
