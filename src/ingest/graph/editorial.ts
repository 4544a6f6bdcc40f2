import { sameId, type Db } from '../../platform/storage/index.js';
import type { EditorialState, EditorialStatus } from './types.js';
import { recomputeFactSurvivor, refreshQaStaleness } from './recompute.js';
import { refreshSearchDocs } from './search-docs.js';

/** A change to a record's editorial state; absent fields keep their value. */
export interface EditorialPatch {
  hidden?: boolean;
  pinned?: boolean;
  /**
   * For a fact: the item whose candidate is pinned. When `pinned: true` comes without it, the
   * item of the current survivor is pinned (the value the editor saw); null pins every candidate.
   */
  pinnedItemKey?: string | null;
  editorialStatus?: EditorialStatus | null;
  reviewedBy?: string | null;
  originalValue?: unknown;
}

interface EditorialRow {
  hidden: number;
  pinned: number;
  pinned_item_key: string | null;
  editorial_status: EditorialStatus | null;
  reviewed_by: string | null;
  original_value: string | null;
}

export const NO_EDITORIAL: Readonly<EditorialState> = Object.freeze({
  hidden: false,
  pinned: false,
  editorialStatus: null,
  reviewedBy: null,
  originalValue: null,
});

function toState(row: EditorialRow | undefined): EditorialState {
  if (!row) return { ...NO_EDITORIAL };
  return {
    hidden: row.hidden === 1,
    pinned: row.pinned === 1,
    editorialStatus: row.editorial_status,
    reviewedBy: row.reviewed_by,
    originalValue: row.original_value === null ? null : JSON.parse(row.original_value),
  };
}

export function readEditorial(db: Db, recordId: string): EditorialState & { pinnedItemKey: string | null } {
  const row = db.prepare('SELECT * FROM editorial WHERE record_id = ?').get(recordId) as EditorialRow | undefined;
  return { ...toState(row), pinnedItemKey: row?.pinned_item_key ?? null };
}

/**
 * Sets editorial state on a record by its stable id. The state lives apart from the records, so
 * it survives re-ingestion, tombstones and re-creation of the same record. For a fact, the
 * survivor is re-chosen (a pin wins) and the Q&A made from it re-checked (a hidden fact makes
 * them stale). Returns the resulting state.
 */
export function setEditorial(db: Db, recordId: string, patch: EditorialPatch): EditorialState {
  const run = db.transaction(() => {
    const before = db.prepare('SELECT * FROM editorial WHERE record_id = ?').get(recordId) as EditorialRow | undefined;
    const next: EditorialRow = before
      ? { ...before }
      : {
          hidden: 0,
          pinned: 0,
          pinned_item_key: null,
          editorial_status: null,
          reviewed_by: null,
          original_value: null,
        };
    if (patch.hidden !== undefined) next.hidden = patch.hidden ? 1 : 0;
    if (patch.editorialStatus !== undefined) next.editorial_status = patch.editorialStatus;
    if (patch.reviewedBy !== undefined) next.reviewed_by = patch.reviewedBy;
    if (patch.originalValue !== undefined)
      next.original_value = patch.originalValue === null ? null : JSON.stringify(patch.originalValue);
    if (patch.pinned !== undefined) {
      next.pinned = patch.pinned ? 1 : 0;
      if (!patch.pinned) next.pinned_item_key = null;
      else if (patch.pinnedItemKey !== undefined) next.pinned_item_key = patch.pinnedItemKey;
      else {
        const current = db
          .prepare(
            `SELECT f.item_key FROM (SELECT ? AS id) p CROSS JOIN fact_candidates f ON ${sameId('f.fact_id', 'p.id')} WHERE f.status = 'active' LIMIT 1`,
          )
          .get(recordId) as { item_key: string } | undefined;
        next.pinned_item_key = current?.item_key ?? null;
      }
    } else if (patch.pinnedItemKey !== undefined) {
      next.pinned_item_key = patch.pinnedItemKey;
    }
    db.prepare(
      `INSERT INTO editorial (record_id, hidden, pinned, pinned_item_key, editorial_status, reviewed_by, original_value) VALUES (?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT(record_id) DO UPDATE SET hidden = excluded.hidden, pinned = excluded.pinned, pinned_item_key = excluded.pinned_item_key,
        editorial_status = excluded.editorial_status, reviewed_by = excluded.reviewed_by, original_value = excluded.original_value`,
    ).run(
      recordId,
      next.hidden,
      next.pinned,
      next.pinned_item_key,
      next.editorial_status,
      next.reviewed_by,
      next.original_value,
    );
    if (recordId.startsWith('fact_')) {
      recomputeFactSurvivor(db, recordId);
      // A pin can change the survivor, whose value the fact's search document holds.
      refreshSearchDocs(db, { entities: new Set(), facts: new Set([recordId]), chunks: new Set() });
      refreshQaStaleness(db, [recordId]);
    }
    return toState(next);
  });
  return run();
}
