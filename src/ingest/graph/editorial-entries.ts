import { z } from 'zod';
import { sameId, type Db } from '../../platform/storage/index.js';
import { setEditorial, type EditorialPatch } from './editorial.js';

/**
 * Addresses records before their ids are known, for fixtures (fixtures/<name>/editorial.jsonl):
 * either a stable record id, or an item (its primary entity) with an optional predicate (that
 * entity's facts of the predicate, in every language unless one is named).
 */
export type EditorialMatch = { recordId: string } | { item: string; predicate?: string; language?: string };

export interface EditorialEntry {
  match: EditorialMatch;
  patch: EditorialPatch;
}

const EDITORIAL_STATUSES = ['draft', 'reviewed', 'approved', 'rejected'] as const;

/** One line of editorial.jsonl (docs/graph.md "Editorial state"). */
const EditorialLineSchema = z
  .strictObject({
    record_id: z.string().min(1).optional(),
    item: z.string().min(1).optional(),
    predicate: z.string().min(1).optional(),
    language: z.string().min(1).optional(),
    hidden: z.boolean().optional(),
    pinned: z.boolean().optional(),
    pinned_item: z.string().min(1).nullable().optional(),
    editorial_status: z.enum(EDITORIAL_STATUSES).nullable().optional(),
    reviewed_by: z.string().nullable().optional(),
    original_value: z.unknown().optional(),
  })
  .refine((l) => (l.record_id === undefined) !== (l.item === undefined), {
    message: 'exactly one of record_id or item is required',
  })
  .refine((l) => l.record_id === undefined || (l.predicate === undefined && l.language === undefined), {
    message: 'predicate and language go with item, not record_id',
  });

/** Parses editorial.jsonl text; a bad line throws naming its line number. */
export function parseEditorialJsonl(text: string): EditorialEntry[] {
  const entries: EditorialEntry[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (line === '') return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (error) {
      throw new Error(`editorial.jsonl line ${index + 1}: not JSON (${(error as Error).message})`, { cause: error });
    }
    const parsed = EditorialLineSchema.safeParse(json);
    if (!parsed.success)
      throw new Error(
        `editorial.jsonl line ${index + 1}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(line)'}: ${i.message}`).join('; ')}`,
      );
    const l = parsed.data;
    const match: EditorialMatch =
      l.record_id !== undefined
        ? { recordId: l.record_id }
        : {
            item: l.item!,
            ...(l.predicate !== undefined ? { predicate: l.predicate } : {}),
            ...(l.language !== undefined ? { language: l.language } : {}),
          };
    const patch: EditorialPatch = {};
    if (l.hidden !== undefined) patch.hidden = l.hidden;
    if (l.pinned !== undefined) patch.pinned = l.pinned;
    if (l.pinned_item !== undefined) patch.pinnedItemKey = l.pinned_item;
    if (l.editorial_status !== undefined) patch.editorialStatus = l.editorial_status;
    if (l.reviewed_by !== undefined) patch.reviewedBy = l.reviewed_by;
    if ('original_value' in l) patch.originalValue = l.original_value;
    entries.push({ match, patch });
  });
  return entries;
}

/**
 * The record ids a match names in the current graph. An item match pins that item's own
 * candidate unless the patch names another (pinned_item).
 */
export function resolveEditorialMatch(db: Db, match: EditorialMatch): string[] {
  if ('recordId' in match) return [match.recordId];
  const item = db.prepare('SELECT primary_entity_id FROM item_contributions WHERE item_key = ?').get(match.item) as
    { primary_entity_id: string } | undefined;
  if (!item) return [];
  if (match.predicate === undefined) return [item.primary_entity_id];
  // A fact id hashes its subject, predicate and language, and each fact has one active candidate: the
  // active ones name every fact, through search_facts_by_subject.
  const sql = `SELECT DISTINCT f.fact_id FROM (SELECT ? AS id) p CROSS JOIN fact_candidates f ON ${sameId('f.subject_entity_id', 'p.id')}
    WHERE f.status = 'active' AND f.predicate = ?${match.language !== undefined ? ' AND f.language = ?' : ''} ORDER BY f.fact_id`;
  const args =
    match.language !== undefined
      ? [item.primary_entity_id, match.predicate, match.language]
      : [item.primary_entity_id, match.predicate];
  return db
    .prepare(sql)
    .pluck()
    .all(...args) as string[];
}

/** Applies entries in order; an entry that names no record throws (a fixture typo should be loud). */
export function applyEditorialEntries(db: Db, entries: readonly EditorialEntry[]): number {
  let applied = 0;
  for (const entry of entries) {
    const ids = resolveEditorialMatch(db, entry.match);
    if (ids.length === 0)
      throw new Error(`editorial entry ${JSON.stringify(entry.match)} names no record in the graph`);
    const patch: EditorialPatch = { ...entry.patch };
    if ('item' in entry.match && patch.pinned === true && patch.pinnedItemKey === undefined)
      patch.pinnedItemKey = entry.match.item;
    for (const id of ids) (setEditorial(db, id, patch), applied++);
  }
  return applied;
}
