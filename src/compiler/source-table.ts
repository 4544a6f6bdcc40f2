import { parseStableId } from './id-set.js';

/** A source as the records that cite it and the sitemap see it. */
export interface SourceEntry {
  url: string;
  lastSeenAt: string;
}

/**
 * The exported sources of a compile, by id, in the order they were added (ascending ids, as
 * sources.jsonl is written): each record's citation looks its source up, and the sitemap lists
 * them all with their importance. A node has a source a page, so they are kept compactly: the
 * ids that are stable ids of one prefix as 96 bits in a sorted array (binary search), their url
 * and last-seen time as UTF-8 in one buffer; any other id in a Map. About 90 bytes a source where
 * a Map of strings and objects held about 370.
 */
export class SourceTable {
  private prefix: string | undefined;
  /** Per stable id added, in order: its 96 bits, and its entry's number. */
  private bits = new Uint32Array(3 * 256);
  private numbers = new Uint32Array(256);
  private stable = 0;
  private readonly others = new Map<string, number>();
  /** Per entry: where its url and its last-seen time end in `text` (each starts where the one before ends). */
  private ends = new Uint32Array(2 * 256);
  private text = Buffer.alloc(1 << 16);
  private textBytes = 0;
  private importances = new Float64Array(256);
  /** Per entry: 1 when its line is the validated previous version's bytes (so are its url and last-seen time). */
  private unchanged = new Uint8Array(256);
  private readonly parsed = new Uint32Array(3);
  /** Entries added so far. */
  size = 0;

  /**
   * Adds a source; ids come in ascending order (code-unit order), each once. `unchanged`: its line
   * is the one it had in the validated previous version.
   */
  add(id: string, entry: SourceEntry, unchanged = false): void {
    const n = this.size++;
    if (n === this.importances.length) {
      this.ends = grown(this.ends, new Uint32Array(n * 4));
      this.importances = grown(this.importances, new Float64Array(n * 2));
      this.unchanged = grown(this.unchanged, new Uint8Array(n * 2));
    }
    this.importances[n] = 1;
    this.unchanged[n] = unchanged ? 1 : 0;
    this.append(entry.url);
    this.ends[n * 2] = this.textBytes;
    this.append(entry.lastSeenAt);
    this.ends[n * 2 + 1] = this.textBytes;
    const cut = parseStableId(id, this.parsed);
    this.prefix ??= cut < 0 ? undefined : id.slice(0, cut);
    // Ascending ids of one prefix are ascending 96-bit numbers: the array stays sorted.
    if (cut < 0 || id.slice(0, cut) !== this.prefix || (this.stable > 0 && !this.afterLast())) {
      this.others.set(id, n);
      return;
    }
    if (this.stable === this.numbers.length) {
      this.bits = grown(this.bits, new Uint32Array(this.stable * 6));
      this.numbers = grown(this.numbers, new Uint32Array(this.stable * 2));
    }
    this.bits.set(this.parsed, this.stable * 3);
    this.numbers[this.stable++] = n;
  }

  has(id: string): boolean {
    return this.numberOf(id) !== undefined;
  }

  get(id: string): SourceEntry | undefined {
    const n = this.numberOf(id);
    return n === undefined ? undefined : this.entry(n);
  }

  /** Raises the importance of source `id` (1 until raised) to `importance` when that is higher; false for no such source. */
  raiseImportance(id: string, importance: number): boolean {
    const n = this.numberOf(id);
    if (n === undefined) return false;
    this.importances[n] = Math.max(this.importances[n]!, importance);
    return true;
  }

  /** Every source with its importance, in the order added. */
  *entries(): Generator<SourceEntry & { importance: number }> {
    for (let n = 0; n < this.size; n++) yield { ...this.entry(n), importance: this.importances[n]! };
  }

  /** Whether entry `n`'s line is the validated previous version's bytes. */
  unchangedAt(n: number): boolean {
    return this.unchanged[n] === 1;
  }

  /** Entry `n` (a number numberOf gave). */
  entry(n: number): SourceEntry {
    const start = n === 0 ? 0 : this.ends[n * 2 - 1]!;
    const urlEnd = this.ends[n * 2]!;
    return {
      url: this.text.toString('utf8', start, urlEnd),
      lastSeenAt: this.text.toString('utf8', urlEnd, this.ends[n * 2 + 1]!),
    };
  }

  /** The entry number of source `id`, or undefined for no such source. */
  numberOf(id: string): number | undefined {
    const cut = parseStableId(id, this.parsed);
    if (cut < 0 || this.prefix === undefined || id.slice(0, cut) !== this.prefix) return this.others.get(id);
    const [a, b, c] = this.parsed as unknown as [number, number, number];
    let low = 0;
    let high = this.stable - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const at = middle * 3;
      const order = compareBits(this.bits[at]!, this.bits[at + 1]!, this.bits[at + 2]!, a, b, c);
      if (order === 0) return this.numbers[middle];
      if (order < 0) low = middle + 1;
      else high = middle - 1;
    }
    return this.others.get(id);
  }

  /** Whether `parsed` is above the last stable id added. */
  private afterLast(): boolean {
    const at = (this.stable - 1) * 3;
    const [a, b, c] = this.parsed as unknown as [number, number, number];
    return compareBits(this.bits[at]!, this.bits[at + 1]!, this.bits[at + 2]!, a, b, c) < 0;
  }

  private append(value: string): void {
    const need = this.textBytes + Buffer.byteLength(value, 'utf8');
    if (need > this.text.length) {
      const larger = Buffer.alloc(Math.max(need, this.text.length * 2));
      this.text.copy(larger, 0, 0, this.textBytes);
      this.text = larger;
    }
    this.textBytes += this.text.write(value, this.textBytes, 'utf8');
  }
}

function compareBits(a: number, b: number, c: number, x: number, y: number, z: number): number {
  return a !== x ? a - x : b !== y ? b - y : c - z;
}

function grown<T extends Uint32Array | Float64Array | Uint8Array>(from: T, to: T): T {
  to.set(from);
  return to;
}
