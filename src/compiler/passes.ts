import type { FactRow } from '../ingest/graph/types.js';
import { PROVENANCE_RANK } from '../platform/contract/provenance.js';

/**
 * Rows of an id-sorted stream grouped by id. Superseded candidates of a fact share its id, so a
 * group is one (subject, predicate, language) with all its candidates.
 */
export function* groupById<T extends { id: string }>(rows: Iterable<T>): Generator<T[]> {
  let group: T[] = [];
  for (const row of rows) {
    if (group.length > 0 && group[0]!.id !== row.id) {
      yield group;
      group = [];
    }
    group.push(row);
  }
  if (group.length > 0) yield group;
}

/**
 * Export rule 2 when the store left more than one active candidate: the survivor is chosen as
 * docs/contract.md#fact-rules says (pinned first, then provenance, then confidence), then by value text so the
 * choice never depends on row order.
 */
export function pickSurvivor(candidates: FactRow[]): FactRow {
  if (candidates.length === 1) return candidates[0]!;
  return [...candidates].sort(
    (a, b) =>
      Number(b.editorial.pinned) - Number(a.editorial.pinned) ||
      PROVENANCE_RANK[a.provenanceMethod] - PROVENANCE_RANK[b.provenanceMethod] ||
      b.confidence - a.confidence ||
      (JSON.stringify(a.value) < JSON.stringify(b.value)
        ? -1
        : JSON.stringify(a.value) > JSON.stringify(b.value)
          ? 1
          : 0),
  )[0]!;
}

/** Yields rows whose id differs from the one before (a duplicate id would break a file). */
export function* uniqueById<T extends { id: string }>(rows: Iterable<T>): Generator<T> {
  let last: string | null = null;
  for (const row of rows) {
    if (row.id === last) continue;
    last = row.id;
    yield row;
  }
}
