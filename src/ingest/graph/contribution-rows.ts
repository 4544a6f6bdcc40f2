import type { WebsiteInfo } from '../../control/records/index.js';
import {
  estimateTokens,
  type CandidateRelationship,
  type EntityRef,
  type ItemContribution,
  identityType,
} from '../extract/index.js';
import { stableId } from './stable-ids.js';
import { provenanceRank } from './statements.js';

/**
 * Stable id of the entity a natural key names, whether or not the entity exists yet. The type
 * part is the type's family (identityType): a MusicEvent and an Event with one url are one entity.
 */
export function entityIdOf(websiteId: string, ref: EntityRef): string {
  return stableId('entity', websiteId, identityType(ref.type), ref.canonicalKey);
}

export function factIdOf(websiteId: string, subjectEntityId: string, predicate: string, language: string): string {
  return stableId('fact', websiteId, subjectEntityId, predicate, language);
}

/** The canonical chunk id: (item key, position within the item, language). */
export function chunkIdOf(websiteId: string, itemKey: string, position: number, language: string): string {
  return stableId('chunk', websiteId, itemKey, position, language);
}

/** A source is one url; canonical_url wins so that several urls of one page share it. */
export function sourceIdOf(websiteId: string, url: string, canonicalUrl: string | null): string {
  return stableId('src', websiteId, canonicalUrl ?? url);
}

/** Where the survivor choice's fields sit in a fact row (INSERTS.facts column order). */
const FACT = {
  factId: 0,
  itemKey: 1,
  ordinal: 2,
  confidence: 8,
  provenanceRank: 10,
  lastSeenAt: 20,
  status: 21,
  rank: 22,
} as const;

/**
 * One fact candidate as the survivor choice sees it (recompute.ts rankFactCandidates): a stored
 * one with its status and rank now, or an incoming one with its row, to be inserted with the
 * status and rank the choice gives it.
 */
export class FactCandidate {
  /** 0 when an editorial pin puts it first. */
  pinned = 1;
  constructor(
    readonly factId: string,
    readonly itemKey: string,
    readonly ordinal: number,
    readonly provenanceRank: number,
    readonly confidence: number,
    readonly lastSeenAt: string,
    readonly row?: unknown[],
    readonly stored?: { rowid: number; status: string; rank: number },
  ) {}

  /**
   * An incoming candidate's place in the survivor order: written into its row's last two columns
   * (no copy of the row). Idempotent: a batch merged again item by item is ranked again.
   */
  place(status: string, rank: number): void {
    this.row![FACT.status] = status;
    this.row![FACT.rank] = rank;
  }

  static ofRow(row: unknown[]): FactCandidate {
    return new FactCandidate(
      row[FACT.factId] as string,
      row[FACT.itemKey] as string,
      row[FACT.ordinal] as number,
      row[FACT.provenanceRank] as number,
      row[FACT.confidence] as number,
      row[FACT.lastSeenAt] as string,
      row,
    );
  }
}

/**
 * The rows one item contributes, in the column order of its tables (statements.ts INSERTS); the
 * record ids they name are each row's first column. Duplicates the tables would merge (ON
 * CONFLICT) are merged here already. Plain data: built where the item is extracted (a worker
 * thread) and sent as JSON.
 */
export interface ContributionRows {
  itemKey: string;
  sourceId: string;
  warnings: string[];
  item: unknown[];
  entityContributors: unknown[][];
  relContributors: unknown[][];
  /** Fact rows end before status and rank, which the survivor choice sets (FactCandidate.place). */
  facts: unknown[][];
  chunks: unknown[][];
  qa: unknown[][];
  qaFacts: unknown[][];
}

/**
 * The columns each of an item's rows repeats from the item, by table: its item key, source id,
 * source url (canonical url, else url) and last-seen time. contributionRows writes the same
 * values into every row of an item, so the extraction worker sends them once, in the item's own
 * row (withoutItemColumns), and the writing thread puts them back (withItemColumns): a fifth
 * fewer bytes of JSON for the thread that bounds ingestion to parse, and four fewer strings
 * for each fact row to allocate (docs/graph.md "Throughput").
 */
const ITEM_COLUMNS = {
  entityContributors: { itemKey: 1, sourceId: 12, sourceUrl: 13 },
  relContributors: { itemKey: 1, sourceId: 12, sourceUrl: 13 },
  facts: { itemKey: 1, sourceId: 18, sourceUrl: 19, lastSeenAt: 20 },
  chunks: { itemKey: 1, sourceId: 8 },
  qa: { itemKey: 1 },
  qaFacts: { itemKey: 2 },
} as const;
type ItemColumn = 'itemKey' | 'sourceId' | 'sourceUrl' | 'lastSeenAt';
/** Where the item row (INSERTS.items) holds each of them; the source url is the canonical url, else the url. */
const ITEM_ROW = { itemKey: 0, sourceId: 3, url: 4, canonicalUrl: 5, lastSeenAt: 8 } as const;

/** ITEM_COLUMNS as lists, made once: setItemColumns runs for every item on the writing thread. */
const ITEM_COLUMN_LISTS = (Object.keys(ITEM_COLUMNS) as Array<keyof typeof ITEM_COLUMNS>).map(
  (table) => [table, Object.entries(ITEM_COLUMNS[table]) as Array<[ItemColumn, number]>] as const,
);

function setItemColumns(rows: ContributionRows, valueOf: (column: ItemColumn) => unknown): ContributionRows {
  for (const [table, columns] of ITEM_COLUMN_LISTS) {
    const values = columns.map(([column, index]) => [index, valueOf(column)] as const);
    for (const row of rows[table]) for (const [index, value] of values) row[index] = value;
  }
  return rows;
}

/** The rows with each column repeated from the item set to 0, in place (withItemColumns puts them back). */
export function withoutItemColumns(rows: ContributionRows): ContributionRows {
  return setItemColumns(rows, () => 0);
}

/** The rows withoutItemColumns left out, taken again from the item's row, in place. */
export function withItemColumns(rows: ContributionRows): ContributionRows {
  const item = rows.item;
  const values: Record<ItemColumn, unknown> = {
    itemKey: item[ITEM_ROW.itemKey],
    sourceId: item[ITEM_ROW.sourceId],
    sourceUrl: item[ITEM_ROW.canonicalUrl] ?? item[ITEM_ROW.url],
    lastSeenAt: item[ITEM_ROW.lastSeenAt],
  };
  return setItemColumns(rows, (column) => values[column]);
}

/**
 * Ids of one batch: an item's facts, Q&A and relationships name the same few entities and facts
 * many times over, and each id is a sha256.
 */
export class BatchIds {
  private readonly entities = new Map<string, string>();
  private readonly facts = new Map<string, string>();

  constructor(readonly websiteId: string) {}

  entity(ref: EntityRef): string {
    const key = ref.type + '\u001f' + ref.canonicalKey;
    let id = this.entities.get(key);
    if (id === undefined) this.entities.set(key, (id = entityIdOf(this.websiteId, ref)));
    return id;
  }

  fact(subjectEntityId: string, predicate: string, language: string): string {
    const key = subjectEntityId + '\u001f' + predicate + '\u001f' + language;
    let id = this.facts.get(key);
    if (id === undefined) this.facts.set(key, (id = factIdOf(this.websiteId, subjectEntityId, predicate, language)));
    return id;
  }
}

function languageRank(site: WebsiteInfo, language: string): number {
  return language.toLowerCase() === site.defaultLanguage.toLowerCase() ? 0 : 1;
}

/** Turns one contribution into its rows (pure: no database). */
export function contributionRows(site: WebsiteInfo, c: ItemContribution, ids: BatchIds): ContributionRows {
  const ws = site.websiteId;
  const key = c.itemKey;
  const src = c.source;
  const sourceId = sourceIdOf(ws, src.url, src.canonicalUrl);
  const sourceUrl = src.canonicalUrl ?? src.url;
  const out: ContributionRows = {
    itemKey: key,
    sourceId,
    warnings: c.warnings,
    item: [
      key,
      ids.entity(c.primaryEntity),
      c.language,
      sourceId,
      src.url,
      src.canonicalUrl,
      src.title,
      src.contentType,
      src.lastSeenAt,
      src.checksum,
      JSON.stringify(c.warnings),
    ],
    entityContributors: [],
    relContributors: [],
    facts: [],
    chunks: [],
    qa: [],
    qaFacts: [],
  };

  // One contributor row per entity: the extractor dedupes, but a hand-made contribution may not.
  const seenEntities = new Set<string>();
  for (const e of c.entities) {
    const id = ids.entity(e);
    if (seenEntities.has(id)) continue;
    seenEntities.add(id);
    const rank = provenanceRank(e.provenanceMethod);
    out.entityContributors.push([
      id,
      key,
      e.type,
      e.canonicalKey,
      e.name,
      e.language,
      languageRank(site, e.language),
      e.confidence,
      e.provenanceMethod,
      rank,
      e.importance,
      JSON.stringify(e.attributes ?? {}),
      sourceId,
      sourceUrl,
    ]);
  }

  const bestRel = new Map<string, CandidateRelationship>();
  for (const r of c.relationships) {
    const id = stableId('rel', ws, ids.entity(r.from), r.type, ids.entity(r.to));
    const prior = bestRel.get(id);
    if (
      prior === undefined ||
      provenanceRank(r.provenanceMethod) < provenanceRank(prior.provenanceMethod) ||
      (r.provenanceMethod === prior.provenanceMethod && r.confidence > prior.confidence)
    )
      bestRel.set(id, r);
  }
  for (const [id, r] of bestRel) {
    out.relContributors.push([
      id,
      key,
      r.type,
      ids.entity(r.from),
      ids.entity(r.to),
      r.to.type,
      r.to.canonicalKey,
      r.language,
      languageRank(site, r.language),
      r.confidence,
      r.provenanceMethod,
      provenanceRank(r.provenanceMethod),
      sourceId,
      sourceUrl,
    ]);
  }

  // The value of the item's own best candidate of each fact id
  // (survivor order without pins): what its Q&A are made from.
  const ownBest = new Map<string, { rank: number; confidence: number; value: string }>();
  c.facts.forEach((f, ordinal) => {
    const subjectId = ids.entity(f.subject);
    const id = ids.fact(subjectId, f.predicate, f.language);
    const rank = provenanceRank(f.provenanceMethod);
    const value = JSON.stringify(f.value);
    const row = [
      id,
      key,
      ordinal,
      f.subjectName,
      subjectId,
      f.predicate,
      value,
      f.language,
      f.confidence,
      f.provenanceMethod,
      rank,
      f.unit ?? null,
      f.currency ?? null,
      f.display ?? null,
      f.importance,
      f.freshness,
      f.validFrom ?? null,
      f.validUntil ?? null,
      sourceId,
      sourceUrl,
      src.lastSeenAt,
    ];
    out.facts.push(row);
    const prior = ownBest.get(id);
    if (prior === undefined || rank < prior.rank || (rank === prior.rank && f.confidence > prior.confidence))
      ownBest.set(id, { rank, confidence: f.confidence, value });
  });

  // A chunk id repeated within the item keeps the last row's content (the table's ON CONFLICT rule).
  const chunks = new Map<string, unknown[]>();
  for (const ch of c.chunks) {
    const mentions = [...new Set(ch.mentions.map((m) => ids.entity(m)))].sort();
    const chunkId = chunkIdOf(ws, key, ch.position, ch.language);
    chunks.set(chunkId, [
      chunkId,
      key,
      ch.position,
      ch.language,
      ch.text,
      JSON.stringify(ch.headingPath),
      estimateTokens(ch.text),
      JSON.stringify(mentions),
      sourceId,
    ]);
  }
  out.chunks = [...chunks.values()];

  if (c.qa.length > 0) {
    const qa = new Map<string, unknown[]>();
    const qaFacts = new Set<string>();
    for (const q of c.qa) {
      const id = stableId('qa', ws, q.question, q.language);
      const factIdsOfQa = [
        ...new Set(q.facts.map((f) => ids.fact(ids.entity(f.subject), f.predicate, q.language))),
      ].sort();
      const entityIds = [...new Set(q.entities.map((e) => ids.entity(e)))].sort();
      const values: Record<string, string | null> = {};
      for (const f of factIdsOfQa) values[f] = ownBest.get(f)?.value ?? null;
      // A question asked twice keeps the last answer (the table's ON CONFLICT rule); its fact links add up.
      qa.set(id, [
        id,
        key,
        q.question,
        q.answer,
        q.language,
        JSON.stringify(factIdsOfQa),
        JSON.stringify(entityIds),
        JSON.stringify(values),
        q.confidence,
        q.provenanceMethod,
      ]);
      for (const f of factIdsOfQa) {
        if (qaFacts.has(f + '\u001f' + id)) continue;
        qaFacts.add(f + '\u001f' + id);
        out.qaFacts.push([f, id, key]);
      }
    }
    out.qa = [...qa.values()];
  }
  return out;
}
