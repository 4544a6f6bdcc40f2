import { compareStrings } from './top-k.js';

/** Record kinds a compile can leave out, as they are named in counts.rejected. */
export type RejectedKind = 'sources' | 'entities' | 'facts' | 'relationships' | 'chunks' | 'qa';

/** A graph record left out of the node because it failed its schema or the URL policy. */
export interface RejectedRecord {
  /** The node file it would have been written to. */
  file: string;
  id: string;
  /** Dotted path of the offending field ("" for the record as a whole). */
  path: string;
  message: string;
}

/** How many rejected records a compile result lists; counts.rejected has them all. */
export const REJECTED_LIST_LIMIT = 1000;

/**
 * Collects the records a compile leaves out (docs/node-format.md "Rejected records"). The list
 * is sorted by file, then id, and holds the first REJECTED_LIST_LIMIT of that order: records
 * of one file arrive in id order, so keeping the first LIMIT of each file is enough to know them
 * without holding a million entries.
 */
export class RejectionLog {
  readonly counts: Record<RejectedKind, number> = {
    sources: 0,
    entities: 0,
    facts: 0,
    relationships: 0,
    chunks: 0,
    qa: 0,
  };
  private readonly byFile = new Map<string, RejectedRecord[]>();

  /** Records that the record `id` of `kind`, bound for `file`, was left out for `problem`. */
  add(kind: RejectedKind, file: string, id: string, problem: { path: string; message: string }): void {
    this.counts[kind]++;
    let list = this.byFile.get(file);
    if (list === undefined) this.byFile.set(file, (list = []));
    if (list.length < REJECTED_LIST_LIMIT) list.push({ file, id, path: problem.path, message: problem.message });
  }

  list(): RejectedRecord[] {
    return [...this.byFile.values()]
      .flat()
      .sort((a, b) => compareStrings(a.file, b.file) || compareStrings(a.id, b.id))
      .slice(0, REJECTED_LIST_LIMIT);
  }
}
