import type { EntityRow, FactRow, QaRow, RelationshipRow } from '../ingest/graph/index.js';

/**
 * The hard export rules (docs/contract.md#export-rules), as predicates over graph rows. The GraphReader returns every
 * row with its internal flags; only what passes here is projected into node records (and the
 * projection copies named fields only, so internal flags are never serialized: rule 5).
 */

/** Rule 1 and 2: a hidden fact is never emitted; only the surviving fact per (subject, predicate). */
export function factWithheldReason(fact: FactRow): 'hidden' | 'superseded' | null {
  if (fact.editorial.hidden) return 'hidden';
  if (fact.status !== 'active') return 'superseded';
  return null;
}

/** A hidden entity is not emitted, and neither is anything that would point at it. */
export function isEntityExported(entity: Pick<EntityRow, 'hidden'>): boolean {
  return !entity.hidden;
}

/**
 * Rule 3: only resolved relationships, and only when both endpoints are exported entities, so no
 * relationship leaves a dangling cross-file reference.
 */
export function isRelationshipExported(
  rel: RelationshipRow,
  exportedEntity: (id: string) => boolean,
): rel is RelationshipRow & { toEntityId: string } {
  return (
    rel.resolutionStatus === 'resolved' &&
    rel.toEntityId !== null &&
    exportedEntity(rel.fromEntityId) &&
    exportedEntity(rel.toEntityId)
  );
}

/** Rule 4: stale Q&A is excluded entirely. */
export function isQaExported(qa: QaRow): boolean {
  return !qa.stale;
}
