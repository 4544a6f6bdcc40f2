/**
 * A set of record ids kept compact: an id spelled as the compiler spells a stable id
 * (`<prefix>_<24 lowercase hex>`, src/ingest/graph/stable-ids.ts) is held as its 96 bits in
 * the PrefixIds of its prefix, any other string in a Set. A check of a large node holds every
 * id of it: a Set of strings costs about 100 bytes an id. The same answers as a Set<string>
 * (lowercase hex only, so each string has one encoding).
 */
export class IdSet {
  private readonly tables = new Map<string, PrefixIds>();
  private readonly others = new Set<string>();
  private readonly parsed = new Uint32Array(3);

  get size(): number {
    let size = this.others.size;
    for (const table of this.tables.values()) size += table.size;
    return size;
  }

  has(id: string): boolean {
    const cut = parseStableId(id, this.parsed);
    if (cut < 0) return this.others.has(id);
    return this.tables.get(id.slice(0, cut))?.has(this.parsed) ?? false;
  }

  add(id: string): this {
    this.addNew(id);
    return this;
  }

  /** Adds `id`; true when it was not in the set before (one lookup where has() then add() take two). */
  addNew(id: string): boolean {
    const cut = parseStableId(id, this.parsed);
    if (cut < 0) {
      if (this.others.has(id)) return false;
      this.others.add(id);
      return true;
    }
    const prefix = id.slice(0, cut);
    let table = this.tables.get(prefix);
    if (table === undefined) this.tables.set(prefix, (table = new PrefixIds()));
    return table.add(this.parsed);
  }
}

/** Runs a PrefixIds keeps at most: each is searched on every lookup. */
const MAX_RUNS = 8;
/** Ids a run holds before a smaller id may start another (a shorter one sends it to the table). */
const MIN_RUN = 1024;

/**
 * The 96-bit ids of one prefix. Ids that come in ascending order (a node file's, a compile's
 * pass over the graph) are appended to a sorted run: 12 bytes an id, found by binary search.
 * An id below the last of the run starts another run (at most MAX_RUNS, each of MIN_RUN ids
 * or more before it: a file per language) or else goes to a hash table (BitsTable: about 21
 * bytes an id, with its room to grow), which is what ids in no order cost.
 */
class PrefixIds {
  private readonly runs: SortedRun[] = [];
  private table: BitsTable | undefined;

  get size(): number {
    let size = this.table?.size ?? 0;
    for (const run of this.runs) size += run.length;
    return size;
  }

  has(bits: Uint32Array): boolean {
    for (const run of this.runs) if (run.has(bits)) return true;
    return this.table?.has(bits) ?? false;
  }

  /** Adds `bits`; true when they were not here before. */
  add(bits: Uint32Array): boolean {
    const last = this.runs.at(-1);
    if (last !== undefined && last.below(bits)) {
      // Above every id of the last run: only the other runs and the table can hold it.
      for (let i = 0; i < this.runs.length - 1; i++) if (this.runs[i]!.has(bits)) return false;
      if (this.table?.has(bits) === true) return false;
      last.append(bits);
      return true;
    }
    for (const run of this.runs) if (run.has(bits)) return false;
    if (this.runs.length < MAX_RUNS && (last === undefined || last.length >= MIN_RUN)) {
      if (this.table?.has(bits) === true) return false;
      const run = new SortedRun();
      run.append(bits);
      this.runs.push(run);
      return true;
    }
    // One probe of the table both looks and adds.
    return (this.table ??= new BitsTable()).addNew(bits);
  }
}

/** Ids a block of a SortedRun holds (48 KiB, 2^BLOCK_SHIFT): a run grows a block at a time, never copied. */
const BLOCK_SHIFT = 12;
const BLOCK_IDS = 1 << BLOCK_SHIFT;

/** 96-bit values in ascending order, three 32-bit words each, in blocks of BLOCK_IDS. */
class SortedRun {
  private readonly blocks: Uint32Array[] = [];
  length = 0;

  /** Whether every value held is below `bits` (append may take it). */
  below(bits: Uint32Array): boolean {
    if (this.length === 0) return true;
    const k = this.length - 1;
    const block = this.blocks[Math.floor(k / BLOCK_IDS)]!;
    return compareAt(block, (k % BLOCK_IDS) * 3, bits) < 0;
  }

  append(bits: Uint32Array): void {
    const at = this.length % BLOCK_IDS;
    if (at === 0) this.blocks.push(new Uint32Array(BLOCK_IDS * 3));
    this.blocks[this.blocks.length - 1]!.set(bits, at * 3);
    this.length++;
  }

  /**
   * Stable ids are hashes, evenly spread: the search starts where the first word puts `bits`
   * among the run's values, widens from there until it brackets them, then halves: a few probes
   * close together, where a binary search over millions of ids touches 23 places far apart.
   */
  has(bits: Uint32Array): boolean {
    const n = this.length;
    if (n === 0 || this.compare(0, bits) > 0 || this.compare(n - 1, bits) < 0) return false;
    const first = this.blocks[0]![0]!;
    const span = this.blocks[(n - 1) >>> BLOCK_SHIFT]![((n - 1) & (BLOCK_IDS - 1)) * 3]! - first + 1;
    const guess = Math.min(n - 1, Math.floor(((bits[0]! - first) / span) * n));
    // [lo, hi): the value at lo is not above `bits`, the one at hi (if any) is.
    let lo: number;
    let hi: number;
    if (this.compare(guess, bits) <= 0) {
      lo = guess;
      for (let step = 1; ; step *= 2) {
        hi = Math.min(n, lo + step);
        if (hi === n || this.compare(hi, bits) > 0) break;
        lo = hi;
      }
    } else {
      hi = guess;
      for (let step = 1; ; step *= 2) {
        lo = Math.max(0, hi - step);
        if (lo === 0 || this.compare(lo, bits) <= 0) break;
        hi = lo;
      }
    }
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = this.compare(mid, bits);
      if (c === 0) return true;
      if (c < 0) lo = mid + 1;
      else hi = mid;
    }
    return false;
  }

  /** The value at `k` against `bits` (compareAt). */
  private compare(k: number, bits: Uint32Array): number {
    return compareAt(this.blocks[k >>> BLOCK_SHIFT]!, (k & (BLOCK_IDS - 1)) * 3, bits);
  }
}

/** The value at word `at` of `words` against `bits`: negative below, 0 equal, positive above (unsigned words). */
function compareAt(words: Uint32Array, at: number, bits: Uint32Array): number {
  return words[at]! - bits[0]! || words[at + 1]! - bits[1]! || words[at + 2]! - bits[2]!;
}

/**
 * A set of 96-bit values: three 32-bit words a slot, linear probing, at most 3/4 full. The
 * all-zero value marks an empty slot, so it is kept as a flag of its own.
 */
class BitsTable {
  private words = new Uint32Array(3 * 16);
  private used = 0;
  private zero = false;

  get size(): number {
    return this.used + (this.zero ? 1 : 0);
  }

  has(bits: Uint32Array): boolean {
    if (isZero(bits)) return this.zero;
    return !this.isEmpty(this.find(bits));
  }

  /** Adds `bits`; true when they were not here before. */
  addNew(bits: Uint32Array): boolean {
    if (isZero(bits)) {
      const added = !this.zero;
      this.zero = true;
      return added;
    }
    const at = this.find(bits);
    if (!this.isEmpty(at)) return false;
    this.words.set(bits, at);
    if (++this.used * 4 > (this.words.length / 3) * 3) this.grow();
    return true;
  }

  private isEmpty(at: number): boolean {
    return this.words[at] === 0 && this.words[at + 1] === 0 && this.words[at + 2] === 0;
  }

  /** Where `bits` is, or the empty slot where it would go (a word offset). */
  private find(bits: Uint32Array): number {
    const a = bits[0]!;
    const b = bits[1]!;
    const c = bits[2]!;
    const slots = this.words.length / 3;
    let i = mix(a, b, c) & (slots - 1);
    for (;;) {
      const at = i * 3;
      const x = this.words[at]!;
      const y = this.words[at + 1]!;
      const z = this.words[at + 2]!;
      if ((x === a && y === b && z === c) || (x === 0 && y === 0 && z === 0)) return at;
      i = (i + 1) & (slots - 1);
    }
  }

  private grow(): void {
    const old = this.words;
    this.words = new Uint32Array(old.length * 2);
    const bits = new Uint32Array(3);
    for (let at = 0; at < old.length; at += 3) {
      if (old[at] === 0 && old[at + 1] === 0 && old[at + 2] === 0) continue;
      bits[0] = old[at]!;
      bits[1] = old[at + 1]!;
      bits[2] = old[at + 2]!;
      this.words.set(bits, this.find(bits));
    }
  }
}

function isZero(bits: Uint32Array): boolean {
  return bits[0] === 0 && bits[1] === 0 && bits[2] === 0;
}

/** Each character code's value as a lowercase hex digit, -1 for any other (codes past 'f' are undefined). */
const HEX: readonly number[] = Array.from({ length: 103 }, (_, code) =>
  code >= 48 && code <= 57 ? code - 48 : code >= 97 ? code - 87 : -1,
);

/** A slot number from the id's words (stable ids are hashes already, but any spelling must spread). */
function mix(a: number, b: number, c: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ b;
  h = Math.imul(h ^ (h >>> 15), 0xc2b2ae35) ^ c;
  h = Math.imul(h ^ (h >>> 13), 0x27d4eb2f);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * Puts the 96 bits of a stable id (`<prefix>_<24 lowercase hex>`) into `words`; returns the
 * length of its prefix, or -1 when `id` is not spelled so.
 */
export function parseStableId(id: string, words: Uint32Array): number {
  const cut = id.length - 25;
  if (cut < 1 || id.charCodeAt(cut) !== 95 /* _ */) return -1;
  for (let w = 0; w < 3; w++) {
    let word = 0;
    for (let k = cut + 1 + w * 8, end = k + 8; k < end; k++) {
      const nibble = HEX[id.charCodeAt(k)] ?? -1;
      if (nibble < 0) return -1;
      word = (word << 4) | nibble;
    }
    words[w] = word >>> 0;
  }
  return cut;
}

/** The stable id of `prefix` and three words (parseStableId's inverse). */
export function formatStableId(prefix: string, a: number, b: number, c: number): string {
  return `${prefix}_${hex8(a)}${hex8(b)}${hex8(c)}`;
}

/** Each byte as two lowercase hex digits: a check spells every id it replays back out of its bits. */
const HEX_BYTES: readonly string[] = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

function hex8(word: number): string {
  return (
    HEX_BYTES[word >>> 24]! + HEX_BYTES[(word >>> 16) & 255]! + HEX_BYTES[(word >>> 8) & 255]! + HEX_BYTES[word & 255]!
  );
}

/**
 * One field of many records, in record order, compact where the field holds stable ids (13
 * bytes each: its prefix's number and 96 bits); any other value is kept as it is. At most 255
 * prefixes are held compactly, the ids of any others as strings.
 */
export class IdColumn {
  private tags = new Uint8Array(256);
  private words = new Uint32Array(3 * 256);
  private readonly prefixes: string[] = [];
  private readonly prefixNumbers = new Map<string, number>();
  private readonly others = new Map<number, unknown>();
  private readonly parsed = new Uint32Array(3);
  length = 0;

  push(value: unknown): void {
    const k = this.length++;
    if (k === this.tags.length) {
      this.tags = grown(this.tags, new Uint8Array(k * 2));
      this.words = grown(this.words, new Uint32Array(k * 6));
    }
    const cut = typeof value === 'string' ? parseStableId(value, this.parsed) : -1;
    const prefix = cut < 0 ? undefined : this.prefixNumber((value as string).slice(0, cut));
    if (prefix === undefined) {
      // Tag 0: the value is in `others` (undefined is not kept at all).
      this.tags[k] = 0;
      if (value !== undefined) this.others.set(k, value);
      return;
    }
    this.tags[k] = prefix + 1;
    this.words.set(this.parsed, k * 3);
  }

  /** The value of record `k`, as it was pushed. */
  get(k: number): unknown {
    const tag = this.tags[k]!;
    if (tag === 0) return this.others.get(k);
    const at = k * 3;
    return formatStableId(this.prefixes[tag - 1]!, this.words[at]!, this.words[at + 1]!, this.words[at + 2]!);
  }

  private prefixNumber(name: string): number | undefined {
    let prefix = this.prefixNumbers.get(name);
    if (prefix === undefined && this.prefixes.length < 255) {
      prefix = this.prefixes.push(name) - 1;
      this.prefixNumbers.set(name, prefix);
    }
    return prefix;
  }
}

/**
 * One field of many records whose value is most often an array of stable ids (entity_ids,
 * fact_ids): the elements of every record in one IdColumn, and where each record's begin (4
 * bytes) and whether it was an array (1 byte). A value that is not an array is kept as one
 * element; get() gives back an array of the same elements, or the value, as it was pushed.
 */
export class IdListColumn {
  private readonly elements = new IdColumn();
  private readonly starts = new NumberColumn();
  private arrays = new Uint8Array(256);
  length = 0;

  push(value: unknown): void {
    const k = this.length++;
    if (k === this.arrays.length) this.arrays = grown(this.arrays, new Uint8Array(k * 2));
    this.starts.push(this.elements.length);
    if (Array.isArray(value)) {
      this.arrays[k] = 1;
      for (const element of value) this.elements.push(element);
    } else {
      this.arrays[k] = 0;
      this.elements.push(value);
    }
  }

  get(k: number): unknown {
    const start = this.starts.get(k);
    if (this.arrays[k] === 0) return this.elements.get(start);
    const end = k + 1 < this.length ? this.starts.get(k + 1) : this.elements.length;
    const value: unknown[] = [];
    for (let i = start; i < end; i++) value.push(this.elements.get(i));
    return value;
  }
}

/** A growing list of small whole numbers (below 2^32), 4 bytes each. */
export class NumberColumn {
  private values = new Uint32Array(256);
  length = 0;

  push(value: number): void {
    if (this.length === this.values.length) this.values = grown(this.values, new Uint32Array(this.length * 2));
    this.values[this.length++] = value;
  }

  get(k: number): number {
    return this.values[k]!;
  }
}

function grown<T extends Uint8Array | Uint32Array>(from: T, to: T): T {
  to.set(from);
  return to;
}
