/**
 * A set of record ids kept compact: an id spelled as the compiler spells a stable id
 * (`<prefix>_<24 lowercase hex>`, src/ingest/graph/stable-ids.ts) is held as its prefix's
 * number and its 96 bits in an open-addressing table of 32-bit words (16 bytes a slot), any
 * other string in a Set. A check of a large node holds every id of it: a Set of strings costs
 * about 100 bytes an id. The same answers as a Set<string> (lowercase hex only, so each
 * string has one encoding).
 */
export class IdSet {
  /** Per slot: prefix number + 1 (0: empty), then the id's 96 bits as three words. */
  private table = new Uint32Array(4 * 16);
  private used = 0;
  private readonly prefixes = new Map<string, number>();
  private readonly others = new Set<string>();
  private readonly parsed = new Uint32Array(3);

  get size(): number {
    return this.used + this.others.size;
  }

  has(id: string): boolean {
    const prefix = this.encode(id, false);
    if (prefix === NOT_STABLE) return this.others.has(id);
    if (prefix === UNKNOWN_PREFIX) return false;
    return this.table[this.find(prefix)] !== 0;
  }

  add(id: string): this {
    const prefix = this.encode(id, true);
    if (prefix === NOT_STABLE) {
      this.others.add(id);
      return this;
    }
    const slot = this.find(prefix);
    if (this.table[slot] !== 0) return this;
    this.put(slot, prefix);
    return this;
  }

  /** The slot of the encoded id (`parsed`, `prefix`): where it is, or the empty slot where it would go. */
  private find(prefix: number): number {
    const [a, b, c] = this.parsed as unknown as [number, number, number];
    const mask = this.table.length / 4 - 1;
    let i = mix(a, b, c, prefix) & mask;
    for (;;) {
      const at = i * 4;
      const tag = this.table[at]!;
      if (tag === 0) return at;
      if (tag === prefix + 1 && this.table[at + 1] === a && this.table[at + 2] === b && this.table[at + 3] === c)
        return at;
      i = (i + 1) & mask;
    }
  }

  private put(at: number, prefix: number): void {
    this.table[at] = prefix + 1;
    this.table.set(this.parsed, at + 1);
    this.used++;
    // Kept at most 5/8 full, so a probe rarely goes far.
    if (this.used * 8 > (this.table.length / 4) * 5) this.grow();
  }

  private grow(): void {
    const old = this.table;
    this.table = new Uint32Array(old.length * 2);
    this.used = 0;
    for (let at = 0; at < old.length; at += 4) {
      if (old[at] === 0) continue;
      this.parsed[0] = old[at + 1]!;
      this.parsed[1] = old[at + 2]!;
      this.parsed[2] = old[at + 3]!;
      const prefix = old[at]! - 1;
      const slot = this.find(prefix);
      this.table[slot] = prefix + 1;
      this.table.set(this.parsed, slot + 1);
      this.used++;
    }
  }

  /**
   * The prefix number of a stable id, its 96 bits put into `parsed`; NOT_STABLE for any other
   * string, UNKNOWN_PREFIX for a stable id whose prefix this set never held (when not `adding`).
   */
  private encode(id: string, adding: boolean): number {
    const cut = parseStableId(id, this.parsed);
    if (cut < 0) return NOT_STABLE;
    const name = id.slice(0, cut);
    let prefix = this.prefixes.get(name);
    if (prefix === undefined) {
      if (!adding) return UNKNOWN_PREFIX;
      prefix = this.prefixes.size;
      this.prefixes.set(name, prefix);
    }
    return prefix;
  }
}

const NOT_STABLE = -1;
const UNKNOWN_PREFIX = -2;

/** Each character code's value as a lowercase hex digit, -1 for any other (codes past 'f' are undefined). */
const HEX: readonly number[] = Array.from({ length: 103 }, (_, code) =>
  code >= 48 && code <= 57 ? code - 48 : code >= 97 ? code - 87 : -1,
);

/** A slot number from the id's words (stable ids are hashes already, but any spelling must spread). */
function mix(a: number, b: number, c: number, prefix: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ b;
  h = Math.imul(h ^ (h >>> 15), 0xc2b2ae35) ^ c;
  h = Math.imul(h ^ (h >>> 13), 0x27d4eb2f) ^ prefix;
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

function hex8(word: number): string {
  return word.toString(16).padStart(8, '0');
}

/**
 * One field of many records, in record order, compact where the field holds stable ids (16
 * bytes each: the prefix's number and 96 bits); any other value is kept as it is.
 */
export class IdColumn {
  private words = new Uint32Array(4 * 256);
  private readonly prefixes: string[] = [];
  private readonly prefixNumbers = new Map<string, number>();
  private readonly others = new Map<number, unknown>();
  private readonly parsed = new Uint32Array(3);
  length = 0;

  push(value: unknown): void {
    const at = this.length * 4;
    if (at + 4 > this.words.length) {
      const grown = new Uint32Array(this.words.length * 2);
      grown.set(this.words);
      this.words = grown;
    }
    const cut = typeof value === 'string' ? parseStableId(value, this.parsed) : -1;
    if (cut < 0) {
      // Tag 0: the value is in `others` (undefined is not kept at all).
      this.words[at] = 0;
      if (value !== undefined) this.others.set(this.length, value);
    } else {
      const name = (value as string).slice(0, cut);
      let prefix = this.prefixNumbers.get(name);
      if (prefix === undefined) {
        prefix = this.prefixes.push(name) - 1;
        this.prefixNumbers.set(name, prefix);
      }
      this.words[at] = prefix + 1;
      this.words.set(this.parsed, at + 1);
    }
    this.length++;
  }

  /** The value of record `k`, as it was pushed. */
  get(k: number): unknown {
    const at = k * 4;
    const tag = this.words[at]!;
    if (tag === 0) return this.others.get(k);
    return formatStableId(this.prefixes[tag - 1]!, this.words[at + 1]!, this.words[at + 2]!, this.words[at + 3]!);
  }
}
