import { sortKeysDeep } from '../platform/contract/index.js';
import type { ChunkRow, EntityRow, FactRow, QaRow, RelationshipRow, SourceRow } from '../ingest/graph/index.js';
import {
  NODE_SCHEMA_VERSION,
  type ChunkRecord,
  type EntityRecord,
  type FactRecord,
  type QaRecord,
  type RelationshipRecord,
  type SourceRecord,
} from '../platform/node-format/index.js';

/**
 * Projections of graph rows into node records. Each copies the fields the node format names, in
 * a fixed key order, and nothing else: the internal flags of a row (hidden, pinned, status,
 * stale, editorial) have no way into a record. Nested objects get their keys sorted so the
 * output never depends on how a row was built.
 */

/**
 * What a projection may point at: exported records only, so no cross-file reference dangles, and
 * URLs that the URL policy allows.
 */
export interface ExportedIds {
  entity(id: string): boolean;
  fact(id: string): boolean;
  source(id: string): boolean;
  /** The source_url a record may carry: its own when allowed, else its exported source's url, else null. */
  sourceUrl(url: string | null, sourceId: string | null): string | null;
}

/** The source_id and source_url a record of `row` carries: its source when exported, a URL the policy allows. */
export function sourceOf(
  row: { sourceId: string | null; sourceUrl: string | null },
  ids: ExportedIds,
): { source_id?: string; source_url?: string } {
  const out: { source_id?: string; source_url?: string } = {};
  if (row.sourceId !== null && ids.source(row.sourceId)) out.source_id = row.sourceId;
  const url = ids.sourceUrl(row.sourceUrl, row.sourceId);
  if (url !== null) out.source_url = url;
  return out;
}

/** `withheldAttributes`: attribute keys of hidden facts of this entity, left out. */
export function projectEntity(
  row: EntityRow,
  ids: ExportedIds,
  withheldAttributes?: ReadonlySet<string>,
): EntityRecord {
  const record: EntityRecord = {
    id: row.id,
    schema_version: NODE_SCHEMA_VERSION,
    type: row.type,
    name: row.name,
    language: row.language,
    confidence: row.confidence,
    provenance_method: row.provenanceMethod,
    ...sourceOf(row, ids),
  };
  const attributes =
    withheldAttributes === undefined
      ? row.attributes
      : Object.fromEntries(Object.entries(row.attributes).filter(([key]) => !withheldAttributes.has(key)));
  if (Object.keys(attributes).length > 0) record.attributes = sortKeysDeep(attributes);
  return record;
}

export function projectFact(row: FactRow, ids: ExportedIds): FactRecord {
  const record: FactRecord = {
    id: row.id,
    schema_version: NODE_SCHEMA_VERSION,
    subject: row.subject,
    predicate: row.predicate,
    value: typeof row.value === 'object' ? sortKeysDeep(row.value) : row.value,
    language: row.language,
    confidence: row.confidence,
    provenance_method: row.provenanceMethod,
  };
  if (row.unit !== null) record.unit = row.unit;
  if (row.currency !== null) record.currency = row.currency;
  if (row.display !== null) record.display = row.display;
  if (row.subjectEntityId !== null && ids.entity(row.subjectEntityId)) record.subject_entity_id = row.subjectEntityId;
  record.importance = row.importance;
  record.freshness = row.freshness;
  if (row.validFrom !== null) record.valid_from = row.validFrom;
  if (row.validUntil !== null) record.valid_until = row.validUntil;
  return Object.assign(record, sourceOf(row, ids));
}

export function projectRelationship(
  row: RelationshipRow & { toEntityId: string },
  ids: ExportedIds,
): RelationshipRecord {
  return {
    id: row.id,
    schema_version: NODE_SCHEMA_VERSION,
    type: row.type,
    from_entity_id: row.fromEntityId,
    to_entity_id: row.toEntityId,
    resolution_status: 'resolved',
    language: row.language,
    confidence: row.confidence,
    provenance_method: row.provenanceMethod,
    ...sourceOf(row, ids),
  };
}

export function projectChunk(row: ChunkRow, ids: ExportedIds): ChunkRecord {
  const record: ChunkRecord = {
    id: row.id,
    schema_version: NODE_SCHEMA_VERSION,
    text: row.text,
    tokens_estimate: row.tokensEstimate,
    language: row.language,
  };
  const entityIds = uniqueSorted(row.entityIds.filter((id) => ids.entity(id)));
  if (entityIds.length > 0) record.entity_ids = entityIds;
  if (row.sourceId !== null && ids.source(row.sourceId)) record.source_id = row.sourceId;
  return record;
}

export function projectQa(row: QaRow, ids: ExportedIds): QaRecord {
  const record: QaRecord = {
    id: row.id,
    schema_version: NODE_SCHEMA_VERSION,
    question: row.question,
    answer: row.answer,
    language: row.language,
  };
  const factIds = uniqueSorted(row.factIds.filter((id) => ids.fact(id)));
  const entityIds = uniqueSorted(row.entityIds.filter((id) => ids.entity(id)));
  if (factIds.length > 0) record.fact_ids = factIds;
  if (entityIds.length > 0) record.entity_ids = entityIds;
  record.confidence = row.confidence;
  record.provenance_method = row.provenanceMethod;
  return record;
}

/** `canonicalAllowed`: whether the URL policy lets canonical_url appear (a foreign one is left out). */
export function projectSource(row: SourceRow, canonicalAllowed: (url: string) => boolean): SourceRecord {
  const record: SourceRecord = {
    id: row.id,
    schema_version: NODE_SCHEMA_VERSION,
    url: row.url,
    content_type: row.contentType,
    last_seen_at: row.lastSeenAt,
    checksum: row.checksum,
    language: row.language,
    trust: row.trust,
  };
  const canonical = canonicalUrlOf(row, canonicalAllowed);
  if (canonical !== null) record.canonical_url = canonical;
  if (row.title !== null && row.title !== '') record.title = row.title;
  return record;
}

/** The canonical_url a source's record carries: its row's when it is another url and the URL policy allows it. */
export function canonicalUrlOf(
  row: Pick<SourceRow, 'url' | 'canonicalUrl'>,
  canonicalAllowed: (url: string) => boolean,
): string | null {
  return row.canonicalUrl !== null && row.canonicalUrl !== row.url && canonicalAllowed(row.canonicalUrl)
    ? row.canonicalUrl
    : null;
}

function uniqueSorted(values: string[]): string[] {
  return [...new Set(values)].sort();
}
