import type { Db } from '../storage/sqlite.js';
import { trustScore, type WebsiteInfo } from '../website/types.js';
import { estimateTokens } from '../extract/chunks.js';
import type { CandidateFact, EntityRef, ItemContribution } from '../extract/contribution.js';
import { stableId } from './ids.js';
import { emptyTouched, recomputeTouched, type TouchedKeys } from './recompute.js';
import { mergeSearchTouched, refreshSearchDocs, type SearchTouched } from './search-docs.js';
import { graphStatements, provenanceRank } from './statements.js';

/** Stable id of the entity a natural key names, whether or not the entity exists yet. */
export function entityIdOf(websiteId: string, ref: EntityRef): string {
  return stableId('entity', websiteId, ref.type, ref.canonicalKey);
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

function languageRank(site: WebsiteInfo, language: string): number {
  return language.toLowerCase() === site.defaultLanguage.toLowerCase() ? 0 : 1;
}

/** The values an item's own candidates give each fact id (the item's best by the survivor order, without pins). */
function ownBestValues(websiteId: string, facts: readonly CandidateFact[]): Map<string, string> {
  const best = new Map<string, { rank: number; confidence: number; value: string }>();
  for (const f of facts) {
    const id = factIdOf(websiteId, entityIdOf(websiteId, f.subject), f.predicate, f.language);
    const rank = provenanceRank(f.provenanceMethod);
    const prior = best.get(id);
    if (prior === undefined || rank < prior.rank || (rank === prior.rank && f.confidence > prior.confidence)) best.set(id, { rank, confidence: f.confidence, value: JSON.stringify(f.value) });
  }
  return new Map([...best].map(([id, v]) => [id, v.value]));
}

/** Deletes every row an item contributed and records the natural keys they named. */
export function deleteItemRows(db: Db, itemKey: string, touched: TouchedKeys): boolean {
  const s = graphStatements(db);
  const item = s.itemRow.get(itemKey) as { source_id: string } | undefined;
  // Every row of an item is written with its item_contributions row: none there, nothing to delete.
  if (!item) return false;
  touched.sources.add(item.source_id);
  for (const r of s.itemEntityIds.all(itemKey) as Array<{ id: string }>) touched.entities.add(r.id);
  for (const r of s.itemRelIds.all(itemKey) as Array<{ id: string }>) touched.relationships.add(r.id);
  for (const r of s.itemFactIds.all(itemKey) as Array<{ id: string }>) touched.facts.add(r.id);
  for (const r of s.itemChunkIds.all(itemKey) as Array<{ id: string }>) touched.chunks.add(r.id);
  s.deleteEntityContributors.run(itemKey);
  s.deleteRelContributors.run(itemKey);
  s.deleteFacts.run(itemKey);
  s.deleteChunks.run(itemKey);
  s.deleteQa.run(itemKey);
  s.deleteQaFacts.run(itemKey);
  s.deleteItem.run(itemKey);
  return true;
}

function insertContribution(db: Db, site: WebsiteInfo, c: ItemContribution, touched: TouchedKeys): void {
  const s = graphStatements(db);
  const ws = site.websiteId;
  const key = c.itemKey;
  const src = c.source;
  const sourceId = sourceIdOf(ws, src.url, src.canonicalUrl);
  const sourceUrl = src.canonicalUrl ?? src.url;
  s.insertItem.run(key, entityIdOf(ws, c.primaryEntity), c.language, sourceId, src.url, src.canonicalUrl, src.title, src.contentType, src.lastSeenAt, src.checksum, JSON.stringify(c.warnings));
  touched.sources.add(sourceId);

  // One contributor row per entity: the extractor dedupes, but a hand-made contribution may not.
  const seenEntities = new Set<string>();
  for (const e of c.entities) {
    const id = entityIdOf(ws, e);
    if (seenEntities.has(id)) continue;
    seenEntities.add(id);
    s.insertEntityContributor.run(id, key, e.type, e.canonicalKey, e.name, e.language, languageRank(site, e.language), e.confidence, e.provenanceMethod,
      provenanceRank(e.provenanceMethod), e.importance, JSON.stringify(e.attributes ?? {}), sourceId, sourceUrl);
    touched.entities.add(id);
  }

  const bestRel = new Map<string, (typeof c.relationships)[number]>();
  for (const r of c.relationships) {
    const id = stableId('rel', ws, entityIdOf(ws, r.from), r.type, entityIdOf(ws, r.to));
    const prior = bestRel.get(id);
    if (prior === undefined || provenanceRank(r.provenanceMethod) < provenanceRank(prior.provenanceMethod)
      || (r.provenanceMethod === prior.provenanceMethod && r.confidence > prior.confidence)) bestRel.set(id, r);
  }
  for (const [id, r] of bestRel) {
    s.insertRelContributor.run(id, key, r.type, entityIdOf(ws, r.from), entityIdOf(ws, r.to), r.to.type, r.to.canonicalKey, r.language, languageRank(site, r.language),
      r.confidence, r.provenanceMethod, provenanceRank(r.provenanceMethod), sourceId, sourceUrl);
    touched.relationships.add(id);
  }

  c.facts.forEach((f, ordinal) => {
    const subjectId = entityIdOf(ws, f.subject);
    const id = factIdOf(ws, subjectId, f.predicate, f.language);
    s.insertFact.run(id, key, ordinal, f.subjectName, subjectId, f.predicate, JSON.stringify(f.value), f.language, f.confidence, f.provenanceMethod, provenanceRank(f.provenanceMethod),
      f.unit ?? null, f.currency ?? null, f.display ?? null, f.importance, f.freshness, f.validFrom ?? null, f.validUntil ?? null, sourceId, sourceUrl, src.lastSeenAt);
    touched.facts.add(id);
  });

  for (const ch of c.chunks) {
    const mentions = [...new Set(ch.mentions.map((m) => entityIdOf(ws, m)))].sort();
    const chunkId = chunkIdOf(ws, key, ch.position, ch.language);
    touched.chunks.add(chunkId);
    s.insertChunk.run(chunkId, key, ch.position, ch.language, ch.text, JSON.stringify(ch.headingPath),
      estimateTokens(ch.text), JSON.stringify(mentions), sourceId);
  }

  if (c.qa.length > 0) {
    const own = ownBestValues(ws, c.facts);
    for (const q of c.qa) {
      const id = stableId('qa', ws, q.question, q.language);
      const factIds = [...new Set(q.facts.map((f) => factIdOf(ws, entityIdOf(ws, f.subject), f.predicate, q.language)))].sort();
      const entityIds = [...new Set(q.entities.map((e) => entityIdOf(ws, e)))].sort();
      const values: Record<string, string | null> = {};
      for (const f of factIds) values[f] = own.get(f) ?? null;
      s.insertQa.run(id, key, q.question, q.answer, q.language, JSON.stringify(factIds), JSON.stringify(entityIds), JSON.stringify(values), q.confidence, q.provenanceMethod);
      for (const f of factIds) s.insertQaFact.run(f, id, key);
      touched.qa.add(id + '\u001f' + key);
    }
  }
}

/**
 * Replaces what one item (contribution.itemKey) contributed to the website's graph with this
 * contribution, in one transaction (a savepoint when called inside one), and re-derives exactly
 * the records whose natural keys the old or the new contribution named: entities, relationships
 * (re-resolved), fact survivors, Q&A staleness, sources and their search documents. Editorial
 * state is never touched. With `searchBatch`, the records to re-index are added to it instead,
 * and the caller refreshes them (refreshSearchDocs) before its transaction commits: one refresh
 * per batch of items.
 */
export function applyContribution(db: Db, site: WebsiteInfo, contribution: ItemContribution, searchBatch?: SearchTouched): void {
  const run = db.transaction(() => {
    const touched = emptyTouched();
    deleteItemRows(db, contribution.itemKey, touched);
    insertContribution(db, site, contribution, touched);
    recomputeTouched(db, touched, trustScore(site.verification.method, site.verification.state));
    if (searchBatch) mergeSearchTouched(searchBatch, touched);
    else refreshSearchDocs(db, touched);
  });
  run();
}

/** Sets every source's trust to the website's current verification trust (it changes with verification). */
export function refreshSourceTrust(db: Db, site: WebsiteInfo): number {
  const trust = trustScore(site.verification.method, site.verification.state);
  return db.prepare('UPDATE sources SET trust = ? WHERE trust != ?').run(trust, trust).changes;
}
