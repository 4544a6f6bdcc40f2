import { IdSet } from './id-set.js';

/**
 * The ids of one .jsonl file, which arrive in ascending order (code-unit order, as JsonlWriter
 * checks it), kept in an IdSet: a large node exports 800,000 facts, and only the Q&A look any
 * up, so each id costs about 26 bytes instead of a string's 56.
 */
export class AscendingIds {
  private readonly ids = new IdSet();
  private last: string | undefined;

  add(id: string): void {
    const last = this.last;
    if (last !== undefined && id <= last) throw new Error(`ids out of ascending order: ${last} then ${id}`);
    this.ids.add(id);
    this.last = id;
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }
}
