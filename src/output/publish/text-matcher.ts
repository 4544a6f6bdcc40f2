/** Shortest text worth searching for: shorter strings match unrelated text too often. */
export const MIN_PATTERN_BYTES = 6;
/** Longer texts are searched as 64-byte pieces, so an excerpt of a long text is found too. */
const WINDOW = 64;
/** Rolling-hash widths; a pattern is hashed on its longest prefix of one of these lengths. */
const WIDTHS = [6, 8, 12, 16, 24, 32, 48, 64] as const;
const BASE = 257;

/**
 * Finds any of many texts in large buffers in one pass per hash width (Rabin-Karp): the erasure
 * purge looks for hundreds of erased strings in every file of every version, which an indexOf
 * per pattern would make quadratic. A hash hit is confirmed byte for byte. Patterns and texts
 * are compared as their skeletons (skeletonOf), so escaping and line breaking do not hide a text.
 */
export class TextMatcher {
  readonly patterns: readonly Buffer[];
  private readonly tables = new Map<number, { pow: number; byHash: Map<number, number[]>; filter: Uint8Array }>();

  constructor(patterns: Iterable<Buffer>) {
    const unique = new Map<string, Buffer>();
    for (const p of patterns) if (p.length >= MIN_PATTERN_BYTES) unique.set(p.toString('latin1'), p);
    this.patterns = [...unique.values()];
    this.patterns.forEach((pattern, index) => {
      const width = [...WIDTHS].reverse().find((w) => w <= pattern.length)!;
      let table = this.tables.get(width);
      if (!table)
        this.tables.set(width, (table = { pow: powOf(width), byHash: new Map(), filter: new Uint8Array(1 << 16) }));
      const h = hashOf(pattern, 0, width);
      table.filter[h & 0xffff] = 1;
      const list = table.byHash.get(h);
      if (list) list.push(index);
      else table.byHash.set(h, [index]);
    });
  }

  get size(): number {
    return this.patterns.length;
  }

  /** True when `body` contains any pattern. */
  matches(body: Buffer): boolean {
    let found = false;
    this.scan(skeletonOf(body), () => (found = true));
    return found;
  }

  /** Indexes of the patterns `body` contains. */
  matchesIn(body: Buffer): Set<number> {
    const hits = new Set<number>();
    this.scan(skeletonOf(body), (index) => void hits.add(index));
    return hits;
  }

  /** Calls `onMatch` per hit; a true return stops the scan. */
  private scan(text: Buffer, onMatch: (index: number) => boolean | void): void {
    for (const [width, table] of this.tables) {
      if (text.length < width) continue;
      let h = hashOf(text, 0, width);
      for (let i = 0; ; i++) {
        if (table.filter[h & 0xffff] === 1) {
          for (const index of table.byHash.get(h) ?? []) {
            const p = this.patterns[index]!;
            if (
              i + p.length <= text.length &&
              text.compare(p, 0, p.length, i, i + p.length) === 0 &&
              onMatch(index) === true
            )
              return;
          }
        }
        if (i + width >= text.length) break;
        h = (Math.imul((h - Math.imul(text[i]!, table.pow)) >>> 0, BASE) + text[i + width]!) >>> 0;
      }
    }
  }
}

/**
 * A text's letters and digits, ASCII lowercased, and its non-ASCII bytes; everything else is
 * dropped. Markdown backslash escapes, collapsed whitespace, removed brackets and controls (the
 * llms files) then read the same as the text itself.
 */
export function skeletonOf(bytes: Buffer): Buffer {
  const out = Buffer.allocUnsafe(bytes.length);
  let n = 0;
  for (const b of bytes) {
    if ((b >= 0x30 && b <= 0x39) || (b >= 0x61 && b <= 0x7a) || b >= 0x80) out[n++] = b;
    else if (b >= 0x41 && b <= 0x5a) out[n++] = b + 0x20;
  }
  return out.subarray(0, n);
}

/** A URL as the llms files write it: non-ASCII, whitespace, quotes, brackets and parentheses percent-encoded. */
function uriOf(text: string): string {
  try {
    return encodeURI(text).replace(/[()'[\]]/g, percent);
  } catch {
    return text; // a lone surrogate: the compiler writes U+FFFD there, the other forms still apply
  }
}

const percent = (char: string) =>
  [...Buffer.from(char, 'utf8')].map((b) => '%' + b.toString(16).toUpperCase().padStart(2, '0')).join('');

/**
 * The skeleton patterns that find `text` where a node file may hold it: as is (text files), JSON
 * string escaped (.json, .jsonl, .jsonld), XML escaped (sitemap) and percent-encoded (URLs in the
 * llms files); a text longer than 64 skeleton bytes as its 64-byte pieces (and its last 64
 * bytes), so a shortened excerpt of it is found as well.
 */
export function patternsOf(text: string): Buffer[] {
  const forms = new Set([
    text,
    JSON.stringify(text).slice(1, -1),
    text
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;'),
    uriOf(text),
  ]);
  const out: Buffer[] = [];
  for (const form of forms) {
    const bytes = skeletonOf(Buffer.from(form, 'utf8'));
    if (bytes.length < MIN_PATTERN_BYTES) continue;
    if (bytes.length <= WINDOW) {
      out.push(bytes);
      continue;
    }
    for (let i = 0; i + WINDOW <= bytes.length; i += WINDOW) out.push(bytes.subarray(i, i + WINDOW));
    out.push(bytes.subarray(bytes.length - WINDOW));
  }
  return out;
}

function hashOf(bytes: Buffer, start: number, width: number): number {
  let h = 0;
  for (let i = start; i < start + width; i++) h = (Math.imul(h, BASE) + bytes[i]!) >>> 0;
  return h;
}

function powOf(width: number): number {
  let p = 1;
  for (let i = 1; i < width; i++) p = Math.imul(p, BASE) >>> 0;
  return p;
}
