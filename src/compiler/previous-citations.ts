import { join } from 'node:path';
import { ForwardLines } from './previous-lines.js';
import { compareStrings } from './top-k.js';

/** The order the compile cites records in: the facts pass, then the entities, then the relationships. */
const KIND_RANK: Readonly<Record<string, number>> = { fact: 0, entity: 1, relationship: 2 };
/** The head of a citation line as the compiler spells it (schema_version, record_id, record_kind first). */
const CITATION_KEY = /^\{"schema_version":"[^"]*","record_id":"([^"\\]+)","record_kind":"([a-z]+)"/;
/** Bytes enough to hold that head: it is matched in the line's start, decoded alone. */
const KEY_BYTES = 512;

const SCHEMA_VERSION_KEY = Buffer.from('{"schema_version":"');
const RECORD_ID_KEY = Buffer.from('","record_id":"');
/** What follows a record id in a citation line, by kind. */
const KIND_TAILS: ReadonlyMap<string, Buffer> = new Map(
  Object.keys(KIND_RANK).map((kind) => [kind, Buffer.from(`","record_kind":"${kind}"`)]),
);

/** A citation line's bytes up to its record id, copied; null when it does not start as the compiler writes one. */
function leadOf(line: Buffer): Buffer | null {
  if (line.compare(SCHEMA_VERSION_KEY, 0, SCHEMA_VERSION_KEY.length, 0, SCHEMA_VERSION_KEY.length) !== 0) return null;
  const key = line.indexOf(RECORD_ID_KEY, SCHEMA_VERSION_KEY.length);
  return key < 0 || key > KEY_BYTES ? null : Buffer.from(line.subarray(0, key + RECORD_ID_KEY.length));
}

interface CitationKey {
  rank: number;
  id: string;
}

/** A previous line; its key is read only when the line is not the one written. */
interface Head {
  line: Buffer;
  key?: CitationKey | null;
}

/** A line's key; its id as the line's bytes spell it (latin1: an id of other bytes matches no record's). */
function keyOf(line: Buffer): CitationKey | null {
  const match = CITATION_KEY.exec(line.toString('latin1', 0, Math.min(line.length, KEY_BYTES)));
  const rank = match === null ? undefined : KIND_RANK[match[2]!];
  return rank === undefined ? null : { rank, id: match![1]! };
}

/**
 * citations.jsonl of the validated previous version, read forward as the compile writes its own.
 * Its lines carry no leading id and are in the order the records were cited (by kind, then file,
 * then id), so a new line is matched to the previous line at the same place: lines passed over
 * are citations gone. `same(line)` says whether the line is the bytes of a previous line, so its
 * checks stand. A place it cannot tell (a language's file added or gone moves the order) answers
 * false, which only costs the line its checks.
 */
export class PreviousCitations {
  private readonly lines: ForwardLines;
  private head: Head | null | undefined;
  /** What every line holds before its record id (`{"schema_version":"…","record_id":"`), from the first line; null when it has none. */
  private lead: Buffer | null | undefined;

  constructor(dir: string) {
    this.lines = new ForwardLines(join(dir, 'citations.jsonl'));
  }

  same(line: Buffer): boolean {
    const head = this.peek();
    if (head !== null && head.line.equals(line)) {
      this.head = undefined;
      return true;
    }
    const key = keyOf(line);
    return key !== null && this.seek(key)?.equals(line) === true;
  }

  /**
   * The previous line citing record `id` of `kind` (a kind the compile cites), taken; null when
   * the previous version has none at this place.
   */
  lineOf(kind: string, id: string): Buffer | null {
    const rank = KIND_RANK[kind];
    if (rank === undefined) return null;
    const head = this.peek();
    if (head !== null && this.cites(head.line, kind, id)) {
      this.head = undefined;
      return head.line;
    }
    return this.seek({ rank, id });
  }

  /**
   * Whether `line` is the citation of record `id` of `kind`, told from its bytes: the lead every
   * line shares, the id, then the kind. Most asks are for the next line: this spares them keyOf's
   * decode and match, and any line it cannot tell is left to seek.
   */
  private cites(line: Buffer, kind: string, id: string): boolean {
    this.lead ??= leadOf(line);
    const lead = this.lead;
    if (lead === null) return false;
    const tail = KIND_TAILS.get(kind)!;
    const at = lead.length + id.length;
    return (
      line.length >= at + tail.length &&
      line.compare(lead, 0, lead.length, 0, lead.length) === 0 &&
      line.toString('latin1', lead.length, at) === id &&
      line.compare(tail, 0, tail.length, at, at + tail.length) === 0
    );
  }

  /** Takes the previous lines up to the one of `key` and returns it; null when the previous version has none at this place. */
  private seek(key: CitationKey): Buffer | null {
    for (let head = this.peek(); head !== null; head = this.peek()) {
      const before = (head.key ??= keyOf(head.line));
      const order = before === null ? -1 : before.rank - key.rank || compareStrings(before.id, key.id);
      if (order > 0) return null; // a citation the previous version did not have
      this.head = undefined; // a citation gone, or this record's previous citation
      if (order === 0) return head.line;
    }
    return null;
  }

  close(): void {
    this.lines.close();
  }

  private peek(): Head | null {
    if (this.head === undefined) {
      const line = this.lines.next();
      this.head = line === null ? null : { line };
    }
    return this.head;
  }
}
