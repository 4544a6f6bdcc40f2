import { sameId, type Db } from '../../platform/storage/index.js';
import type {
  ChunkRow,
  RowsSince,
  ChunkVectorRow,
  EditorialState,
  EntityRow,
  FactRow,
  Freshness,
  GraphReader,
  GraphState,
  ProvenanceMethod,
  QaRow,
  RelationshipRow,
  SourceRow,
  UnchangedChunkRow,
  UnchangedEntityRow,
  GoneFact,
} from './types.js';

/**
 * Each query of the reader selects one JSON array per row, built by SQLite, and `row` makes the
 * array the reader's row. A string per row that JSON.parse turns into the values costs less than
 * an object per row from the driver, or an array of values (figures: docs/graph.md "Reader").
 * SQLite writes a REAL with the digits that read back as the same double. The same strings cross
 * threads unchanged (reader-thread.ts).
 */
export interface RowQuery<T> {
  sql: string;
  row: (values: unknown[]) => T;
}

const rowQuery = <V extends unknown[], T>(sql: string, row: (values: V) => T): RowQuery<T> => ({
  sql,
  row: row as (values: unknown[]) => T,
});

const ENTITY_VALUES = `json_array(e.id, e.type, e.canonical_key, e.name, e.language, e.confidence, e.provenance_method, e.source_id, e.source_url,
    e.importance, e.attributes, ed.hidden)`;
const ENTITY_COLUMNS = `${ENTITY_VALUES}
  FROM entities e LEFT JOIN editorial ed ON ed.record_id = e.id`;
type UnchangedEntityValues = [
  id: string,
  source_id: string | null,
  source_url: string | null,
  provenance_method: ProvenanceMethod,
  confidence: number,
  type: string,
  name: string,
  language: string,
  importance: number,
  hidden: number | null,
];
/** An UnchangedEntityValues array's length (an EntityValues array has 12 values). */
const UNCHANGED_ENTITY_LENGTH = 10;
type EntityValues = [
  id: string,
  type: string,
  canonical_key: string,
  name: string,
  language: string,
  confidence: number,
  provenance_method: ProvenanceMethod,
  source_id: string | null,
  source_url: string | null,
  importance: number,
  attributes: string,
  hidden: number | null,
];
function toEntity([
  id,
  type,
  canonicalKey,
  name,
  language,
  confidence,
  provenanceMethod,
  sourceId,
  sourceUrl,
  importance,
  attributes,
  hidden,
]: EntityValues): EntityRow {
  return {
    id,
    type,
    canonicalKey,
    name,
    language,
    confidence,
    provenanceMethod,
    sourceId,
    sourceUrl,
    importance,
    attributes: JSON.parse(attributes) as Record<string, unknown>,
    hidden: hidden === 1,
  };
}

const FACT_VALUES = `json_array(f.fact_id, f.item_key, f.subject, f.subject_entity_id,
      EXISTS (SELECT 1 FROM entities e WHERE e.id = f.subject_entity_id),
      f.predicate, f.value, f.language, f.confidence, f.provenance_method, f.unit, f.currency, f.display, f.importance, f.freshness,
      f.valid_from, f.valid_until, f.source_id, f.source_url, f.status,
      ed.hidden, ed.pinned, ed.pinned_item_key, ed.editorial_status, ed.reviewed_by, ed.original_value)`;

/** The facts of a language: every candidate, the survivor of each fact id first, with its editorial state. */
export const FACT_SQL = `SELECT ${FACT_VALUES}
  FROM fact_candidates f LEFT JOIN editorial ed ON ed.record_id = f.fact_id
  WHERE f.language = ? ORDER BY f.fact_id, f.rank, f.item_key, f.ordinal`;

/**
 * The facts of a language that changed since a compile: FACT_SQL's rows of those facts only, and
 * one value, the id, for a changed fact without a candidate in the language (gone). Parameters:
 * rowsSinceParams, then the language. A fact changed when one of its candidates was written or
 * taken out after that sequence (a candidate taken out leaves the survivor, or re-ranks, and so
 * stamps, the next), when it is named, when it has an editorial row, when another fact of one of
 * its sources did (that source's line may have changed), and when its subject entity was written
 * or taken out. The candidates written since are found by their sequence's index
 * (fact_candidates_by_seq), and a source's candidates through its items, as a candidate's source
 * is its item's. The joins are ordered by hand (CROSS JOIN, and `+` keeping the language index out
 * of the lookup by fact id), as the planner has no statistics to order them by.
 */
export const FACTS_SINCE_SQL = `WITH since (seq, whole, language) AS (SELECT CAST(? AS INTEGER), ?, ?),
  written (fact_id, source_id) AS MATERIALIZED (
    SELECT fact_id, source_id FROM fact_candidates WHERE seq > (SELECT seq FROM since)),
  changed_sources (source_id) AS (
    SELECT source_id FROM written WHERE source_id IS NOT NULL
    UNION SELECT source_id FROM records_gone WHERE seq > (SELECT seq FROM since) AND kind = 'fact' AND source_id IS NOT NULL),
  changed (fact_id) AS (
    SELECT fact_id FROM written
    UNION SELECT f.fact_id FROM changed_sources s CROSS JOIN item_contributions i ON ${sameId('i.source_id', 's.source_id')}
      CROSS JOIN fact_candidates f ON f.item_key = i.item_key
    UNION SELECT id FROM records_gone WHERE seq > (SELECT seq FROM since) AND kind = 'fact'
    UNION SELECT value FROM json_each((SELECT whole FROM since))
    UNION SELECT record_id FROM editorial WHERE record_id LIKE 'fact\\_%' ESCAPE '\\'
    UNION SELECT f.fact_id FROM entities e CROSS JOIN fact_candidates f ON ${sameId('f.subject_entity_id', 'e.id')} AND f.status = 'active'
      WHERE e.seq > (SELECT seq FROM since)
    UNION SELECT f.fact_id FROM records_gone g CROSS JOIN fact_candidates f ON ${sameId('f.subject_entity_id', 'g.id')} AND f.status = 'active'
      WHERE g.seq > (SELECT seq FROM since) AND g.kind = 'entity')
  SELECT CASE WHEN f.fact_id IS NULL THEN json_array(c.fact_id) ELSE ${FACT_VALUES} END
  FROM changed c LEFT JOIN fact_candidates f ON ${sameId('f.fact_id', 'c.fact_id')} AND +f.language = (SELECT language FROM since)
    LEFT JOIN editorial ed ON ed.record_id = f.fact_id
  ORDER BY c.fact_id, f.rank, f.item_key, f.ordinal`;

type FactValues = [
  fact_id: string,
  item_key: string,
  subject: string,
  subject_entity_id: string,
  subject_exists: number,
  predicate: string,
  value: string,
  language: string,
  confidence: number,
  provenance_method: ProvenanceMethod,
  unit: string | null,
  currency: string | null,
  display: string | null,
  importance: number,
  freshness: Freshness,
  valid_from: string | null,
  valid_until: string | null,
  source_id: string | null,
  source_url: string | null,
  status: FactRow['status'],
  ed_hidden: number | null,
  ed_pinned: number | null,
  ed_pinned_item: string | null,
  ed_status: EditorialState['editorialStatus'],
  ed_reviewed_by: string | null,
  ed_original: string | null,
];
function toFact(r: FactValues): FactRow {
  const [
    factId,
    itemKey,
    subject,
    subjectEntityId,
    subjectExists,
    predicate,
    value,
    language,
    confidence,
    provenanceMethod,
    unit,
    currency,
    display,
    importance,
    freshness,
    validFrom,
    validUntil,
    sourceId,
    sourceUrl,
    status,
    edHidden,
    edPinned,
    edPinnedItem,
    edStatus,
    edReviewedBy,
    edOriginal,
  ] = r;
  return {
    id: factId,
    subject,
    subjectEntityId: subjectExists === 1 ? subjectEntityId : null,
    predicate,
    value: JSON.parse(value) as FactRow['value'],
    language,
    confidence,
    provenanceMethod,
    unit,
    currency,
    display,
    importance,
    freshness,
    validFrom,
    validUntil,
    sourceId,
    sourceUrl,
    status,
    editorial: {
      hidden: edHidden === 1,
      // A pin names one item's candidate (or all of them when no item is named).
      pinned: edPinned === 1 && (edPinnedItem === null || edPinnedItem === itemKey),
      editorialStatus: edStatus ?? null,
      reviewedBy: edReviewedBy,
      originalValue: edOriginal === null ? null : JSON.parse(edOriginal),
    },
  };
}

type RelValues = [
  id: string,
  type: string,
  from_entity_id: string,
  to_entity_id: string | null,
  to_ref: string,
  resolution_status: 'resolved' | 'dangling',
  language: string,
  confidence: number,
  provenance_method: ProvenanceMethod,
  source_id: string | null,
  source_url: string | null,
  unchanged: number,
];
type ChunkValues = [
  id: string,
  text: string,
  tokens_estimate: number,
  language: string,
  source_id: string | null,
  heading_path: string,
  position: number,
  entity_ids: string[],
];
type UnchangedChunkValues = [id: string, source_id: string | null, mention_ids: string[]];
type QaValues = [
  id: string,
  question: string,
  answer: string,
  language: string,
  fact_ids: string[],
  present_entity_ids: string[],
  confidence: number,
  provenance_method: ProvenanceMethod,
  stale: number,
  unchanged: number,
];
type SourceValues = [
  id: string,
  url: string,
  canonical_url: string | null,
  title: string | null,
  content_type: string,
  last_seen_at: string,
  checksum: string,
  language: string,
  trust: number,
  unchanged: number,
];

/**
 * Whether the row of `table` (its alias) was written at or before a compile's sequence and is
 * not named: the condition of the reads that take rowsSinceParams (their first two parameters).
 */
const unchangedSince = (table: string) =>
  `${table}.seq <= CAST(? AS INTEGER) AND ${table}.id NOT IN (SELECT value FROM json_each(?))`;

/** The reader's queries; those of a language take it as their one parameter. */
export const GRAPH_QUERIES = {
  // Parameters: rowsSinceParams, then the language. A row written at or before that sequence, not
  // named, and whose attributes no hidden fact takes out, comes as UnchangedEntityRow. The hidden
  // facts are found from the editorial rows (CROSS JOIN): the planner otherwise scans every candidate.
  entities: rowQuery(
    `SELECT CASE WHEN ${unchangedSince('e')}
        AND e.id NOT IN (SELECT f.subject_entity_id FROM editorial h CROSS JOIN fact_candidates f ON ${sameId('f.fact_id', 'h.record_id')}
          WHERE h.hidden = 1)
      THEN json_array(e.id, e.source_id, e.source_url, e.provenance_method, e.confidence, e.type, e.name, e.language,
        e.importance, ed.hidden)
      ELSE ${ENTITY_VALUES} END
    FROM entities e LEFT JOIN editorial ed ON ed.record_id = e.id WHERE e.language = ? ORDER BY e.id`,
    (values: EntityValues | UnchangedEntityValues): EntityRow | UnchangedEntityRow => {
      if (values.length !== UNCHANGED_ENTITY_LENGTH) return toEntity(values as EntityValues);
      const [id, sourceId, sourceUrl, provenanceMethod, confidence, type, name, language, importance, hidden] =
        values as UnchangedEntityValues;
      return {
        id,
        unchanged: true,
        sourceId,
        sourceUrl,
        provenanceMethod,
        confidence,
        type,
        name,
        language,
        importance,
        hidden: hidden === 1,
      };
    },
  ),
  entityById: rowQuery(`SELECT ${ENTITY_COLUMNS} WHERE e.id = ?`, toEntity),
  facts: rowQuery(FACT_SQL, toFact),
  factsSince: rowQuery(FACTS_SINCE_SQL, (values: FactValues | [fact_id: string]): FactRow | GoneFact =>
    values.length === 1 ? { id: values[0], gone: true } : toFact(values as FactValues),
  ),
  supersededCandidates: rowQuery(
    `SELECT json_array(count(*)) FROM fact_candidates WHERE language = ? AND status != 'active'`,
    ([count]: [number]): number => count,
  ),
  // Parameters: rowsSinceParams, then the language: a row written at or before that sequence,
  // and not named, says so (RelationshipRow.unchanged).
  relationships: rowQuery(
    `SELECT json_array(id, type, from_entity_id, to_entity_id, to_ref, resolution_status, language, confidence, provenance_method, source_id, source_url,
      ${unchangedSince('relationships')})
    FROM relationships WHERE language = ? ORDER BY id`,
    ([
      id,
      type,
      fromEntityId,
      toEntityId,
      toRef,
      resolutionStatus,
      language,
      confidence,
      provenanceMethod,
      sourceId,
      sourceUrl,
      unchanged,
    ]: RelValues): RelationshipRow => {
      const row: RelationshipRow = {
        id,
        type,
        fromEntityId,
        toEntityId,
        toRef,
        resolutionStatus,
        language,
        confidence,
        provenanceMethod,
        sourceId,
        sourceUrl,
      };
      if (unchanged === 1) row.unchanged = true;
      return row;
    },
  ),
  // A chunk's entity ids are those it mentions that exist. Parameters: rowsSinceParams, then the
  // language: a row written at or before that sequence, and not named, comes as UnchangedChunkRow
  // (three values: no text crosses the thread or is parsed).
  chunks: rowQuery(
    `SELECT CASE WHEN ${unchangedSince('c')}
      THEN json_array(c.id, c.source_id, json(c.mention_ids))
      ELSE json_array(c.id, c.text, c.tokens_estimate, c.language, c.source_id, c.heading_path, c.position,
        json((SELECT json_group_array(j.value) FROM json_each(c.mention_ids) j WHERE EXISTS (SELECT 1 FROM entities e WHERE e.id = j.value))))
      END
    FROM chunks c WHERE c.language = ? ORDER BY c.id`,
    (values: ChunkValues | UnchangedChunkValues): ChunkRow | UnchangedChunkRow => {
      if (values.length === 3) {
        const [id, sourceId, mentionIds] = values;
        return { id, unchanged: true, sourceId, mentionIds };
      }
      const [id, text, tokensEstimate, language, sourceId, headingPath, position, entityIds] = values;
      return {
        id,
        text,
        tokensEstimate,
        language,
        entityIds: entityIds.sort(),
        sourceId,
        headingPath: JSON.parse(headingPath) as string[],
        position,
      };
    },
  ),
  // A vector crosses as hex: JSON holds no BLOB. Parameters: the language, then the model key.
  chunkVectors: rowQuery(
    `SELECT json_array(v.chunk_id, hex(v.text_hash), hex(v.vector)) FROM chunk_vectors v
    WHERE EXISTS (SELECT 1 FROM chunks c WHERE c.id = v.chunk_id AND c.language = ?) AND v.model = ? ORDER BY v.chunk_id`,
    ([chunkId, textHash, vector]: [string, string, string]): ChunkVectorRow => ({
      chunkId,
      textHash: textHash.toLowerCase(),
      vector: Buffer.from(vector, 'hex'),
    }),
  ),
  // Several items may ask the same question: a fresh row first for each id, then the most
  // confident, then the first item key (uniqueQa keeps it). Parameters: rowsSinceParams, then the
  // language: an id none of whose rows was written after that sequence, and not named, says so on
  // its rows (QaRow.unchanged; a deleted row stamps the others, migration 0019).
  qa: rowQuery(
    `WITH since (seq, whole) AS (SELECT CAST(? AS INTEGER), ?)
    SELECT json_array(q.id, q.question, q.answer, q.language, json(q.fact_ids),
      (SELECT json_group_array(j.value) FROM json_each(q.entity_ids) j WHERE EXISTS (SELECT 1 FROM entities e WHERE e.id = j.value)),
      q.confidence, q.provenance_method, q.stale,
      CASE WHEN q.seq > (SELECT seq FROM since) THEN 0
        ELSE (SELECT max(s.seq) FROM qa s WHERE s.id = q.id) <= (SELECT seq FROM since)
          AND q.id NOT IN (SELECT value FROM json_each((SELECT whole FROM since))) END)
    FROM qa q WHERE q.language = ? ORDER BY q.id, q.stale, q.confidence DESC, q.item_key`,
    ([
      id,
      question,
      answer,
      language,
      factIds,
      presentEntityIds,
      confidence,
      provenanceMethod,
      stale,
      unchanged,
    ]: QaValues): QaRow => {
      const row: QaRow = {
        id,
        question,
        answer,
        language,
        factIds,
        entityIds: presentEntityIds.sort(),
        confidence,
        provenanceMethod,
        stale: stale === 1,
      };
      if (unchanged === 1) row.unchanged = true;
      return row;
    },
  ),
  // Parameters: rowsSinceParams: a row written at or before that sequence, and not named, says so
  // (SourceRow.unchanged). Read in table order and sorted (NOT INDEXED): walking the id index
  // looks up every row out of order, which took longer than the sort.
  sources: rowQuery(
    `SELECT json_array(id, url, canonical_url, title, content_type, last_seen_at, checksum, language, trust,
      ${unchangedSince('sources')})
    FROM sources NOT INDEXED ORDER BY id`,
    ([
      id,
      url,
      canonicalUrl,
      title,
      contentType,
      lastSeenAt,
      checksum,
      language,
      trust,
      unchanged,
    ]: SourceValues): SourceRow => {
      const row: SourceRow = { id, url, canonicalUrl, title, contentType, lastSeenAt, checksum, language, trust };
      if (unchanged === 1) row.unchanged = true;
      return row;
    },
  ),
} as const;

export type GraphQueryName = keyof typeof GRAPH_QUERIES;

/** The parameters of the queries that take a `since`, before the language: every row whole (changed) without it. */
export function rowsSinceParams(since: RowsSince | undefined): [string, string] {
  return since === undefined ? ['-1', '[]'] : [String(since.seq), JSON.stringify(since.readWhole)];
}

export const GRAPH_STATE_SQL = 'SELECT json_array(graph_id, seq, editorial, gone_floor) FROM graph_state WHERE id = 1';

/** GraphState from GRAPH_STATE_SQL's answer. */
export function toGraphState(json: string | undefined | null): GraphState | undefined {
  if (json === undefined || json === null) return undefined;
  const [graphId, seq, editorial, goneFloor] = JSON.parse(json) as [string, number, number, number];
  return { graphId, seq, editorial, goneFloor };
}

export const LANGUAGES_SQL = `SELECT language FROM entities UNION SELECT language FROM fact_candidates UNION SELECT language FROM relationships
  UNION SELECT language FROM chunks UNION SELECT language FROM qa ORDER BY 1`;

/** One Q&A row per id: the first of each id's rows (QA's order puts the one to keep first). */
export function* uniqueQa(rows: Iterable<QaRow>): Generator<QaRow> {
  let last: string | null = null;
  for (const row of rows) {
    if (row.id === last) continue;
    last = row.id;
    yield row;
  }
}

function* mapJsonRows<T>(rows: IterableIterator<unknown>, query: RowQuery<T>): Generator<T> {
  for (const json of rows) yield query.row(JSON.parse(json as string) as unknown[]);
}

/**
 * GraphReader over a website's graph database. Every iterator streams with `.iterate()` in id
 * order (then survivor rank for fact candidates), and carries the internal flags (fact status,
 * editorial state, hidden, Q&A stale, relationship resolution): the compiler applies the export
 * rules, this reader never filters. Candidates of one fact share its id; the survivor comes first.
 */
export class SqliteGraphReader implements GraphReader {
  constructor(private readonly db: Db) {}

  languages(): string[] {
    return this.db.prepare(LANGUAGES_SQL).pluck().all() as string[];
  }

  entities(language: string): Iterable<EntityRow>;
  entities(language: string, since: RowsSince | undefined): Iterable<EntityRow | UnchangedEntityRow>;
  entities(language: string, since?: RowsSince): Iterable<EntityRow | UnchangedEntityRow> {
    return this.rows(GRAPH_QUERIES.entities, ...rowsSinceParams(since), language);
  }

  facts(language: string): Iterable<FactRow> {
    return this.rows(GRAPH_QUERIES.facts, language);
  }

  factsSince(language: string, since: RowsSince): Iterable<FactRow | GoneFact> {
    return this.rows(GRAPH_QUERIES.factsSince, ...rowsSinceParams(since), language);
  }

  supersededCandidates(language: string): number {
    const json = this.db.prepare(GRAPH_QUERIES.supersededCandidates.sql).pluck().get(language) as string;
    return GRAPH_QUERIES.supersededCandidates.row(JSON.parse(json) as unknown[]);
  }

  relationships(language: string, since?: RowsSince): Iterable<RelationshipRow> {
    return this.rows(GRAPH_QUERIES.relationships, ...rowsSinceParams(since), language);
  }

  chunks(language: string, since?: RowsSince): Iterable<ChunkRow | UnchangedChunkRow> {
    return this.rows(GRAPH_QUERIES.chunks, ...rowsSinceParams(since), language);
  }

  graphState(): GraphState | undefined {
    return toGraphState(this.db.prepare(GRAPH_STATE_SQL).pluck().get() as string | undefined);
  }

  /**
   * One row per Q&A id: when several items ask the same question,
   * a fresh one, then the most confident, then the first item key.
   */
  qa(language: string, since?: RowsSince): Iterable<QaRow> {
    return uniqueQa(this.rows(GRAPH_QUERIES.qa, ...rowsSinceParams(since), language));
  }

  sources(since?: RowsSince): Iterable<SourceRow> {
    return this.rows(GRAPH_QUERIES.sources, ...rowsSinceParams(since));
  }

  chunkVectors(language: string, model: string): Iterable<ChunkVectorRow> {
    return this.rows(GRAPH_QUERIES.chunkVectors, language, model);
  }

  entityById(id: string): EntityRow | undefined {
    const json = this.db.prepare(GRAPH_QUERIES.entityById.sql).pluck().get(id) as string | undefined;
    return json === undefined ? undefined : GRAPH_QUERIES.entityById.row(JSON.parse(json) as unknown[]);
  }

  private rows<T>(query: RowQuery<T>, ...params: string[]): Iterable<T> {
    return mapJsonRows(
      this.db
        .prepare(query.sql)
        .pluck()
        .iterate(...params),
      query,
    );
  }
}
