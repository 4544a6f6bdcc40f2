import { createHash } from 'node:crypto';
import type {
  ChunkRow,
  EntityRow,
  FactRow,
  GraphReader,
  GraphState,
  UnchangedChunkRow,
  UnchangedEntityRow,
  UnchangedFactRow,
} from '../ingest/graph/index.js';
import { capabilitiesOf } from '../control/plans/index.js';
import type { WebsiteInfo } from '../control/records/index.js';
import {
  AiJsonSchema,
  type ChunkRecord,
  ChunkRecordSchema,
  CitationRecordSchema,
  EmbeddingsManifestSchema,
  type EntityRecord,
  EntityRecordSchema,
  FactRecordSchema,
  LanguageSchema,
  ManifestSchema,
  McpManifestSchema,
  NODE_SCHEMA_VERSION,
  OpenApiSchema,
  PriorityFeedRecordSchema,
  QaRecordSchema,
  RelationshipRecordSchema,
  SchemaJsonLdSchema,
  SourceRecordSchema,
  TrustSchema,
  VersionsSchema,
  type CitationRecord,
  type FactRecord,
  type Manifest,
  type PriorityFeedRecord,
  type SourceRecord,
  VECTOR_FILE,
} from '../platform/node-format/index.js';
import type { z } from 'zod';
import { AscendingIds } from './ascending-ids.js';
import { IdSet } from './id-set.js';
import { SourceTable } from './source-table.js';
import { ChangeLog } from './changes.js';
import { compileStateOf, contextKey, SinceMismatch, StateIds, usableSince, type SinceRun } from './compile-since.js';
import {
  buildAiJson,
  buildEmbeddingsManifest,
  buildMcpManifest,
  buildOpenApi,
  buildTrust,
  buildVersions,
  manifestEntry,
  renderJson,
  trustTierOf,
  type WrittenVectors,
} from './documents.js';
import { factWithheldReason, isEntityExported, isQaExported, isRelationshipExported } from './export-rules.js';
import {
  briefText,
  compareEntityBriefs,
  compareFactBriefs,
  type EntityBrief,
  type EntityRank,
  type FactBrief,
  type FactRank,
} from './highlights.js';
import { assertValid, checkRecord, JsonlWriter, type SchemaProblem } from './jsonl-writer.js';
import { renderLlmsFull, renderLlmsTxt } from './llms.js';
import { contentDigest, nodeVersionLabel, nodeVersionUlid, parseBuildTime } from './node-version.js';
import { groupById, pickSurvivor, uniqueById } from './passes.js';
import {
  projectChunk,
  projectEntity,
  projectFact,
  projectQa,
  projectRelationship,
  projectSource,
  type ExportedIds,
} from './project.js';
import { CompileReporter, type CompilePass } from './progress.js';
import { RejectionLog, type RejectedKind } from './rejections.js';
import { buildSchemaJsonLd, JSONLD_MIN_IMPORTANCE, schemaJsonLdBase } from './schema-jsonld.js';
import { WebsiteUrls } from './website-urls.js';
import { TrackedFile, type NodeSink, type WrittenFile } from './sink.js';
import { renderSitemap, selectSitemapEntries } from './sitemap.js';
import { compareStrings, TopK } from './top-k.js';
import type { CompileCounts, CompileOptions, CompileResult } from './types.js';

/** How many ranked records priority-feed.jsonl holds. */
export const PRIORITY_FEED_SIZE = 1000;
/** Entities considered for llms-full.txt and schema.jsonld. */
const HIGHLIGHT_ENTITIES = 600;
const FACTS_PER_ENTITY = 30;
const RECORD_KINDS = [
  ['entities', 'Entities'],
  ['facts', 'Facts'],
  ['relationships', 'Relationships'],
  ['qa', 'Questions and answers'],
  ['chunks', 'Text chunks'],
] as const;

interface Emitted {
  file: WrittenFile;
  language?: string;
  producedBy: string;
}

/** What the passes of one compile share: its inputs, the files written so far, and what is exported. */
interface CompileRun {
  reader: GraphReader;
  site: WebsiteInfo;
  sink: NodeSink;
  urls: WebsiteUrls;
  /** The node's languages, in file order. */
  languages: string[];
  rejections: RejectionLog;
  counts: CompileCounts;
  changes: ChangeLog;
  emitted: Emitted[];
  /** The exported sources, with the importance the entity scan gives each. */
  sources: SourceTable;
  /** Per language, the exported entities whose row of that language is written (an id may have rows in several). */
  entityLanguage: Map<string, IdSet>;
  hiddenEntities: IdSet;
  factIdsByFile: AscendingIds[];
  withheldFacts: IdSet;
  ids: ExportedIds;
  citations: JsonlWriter<CitationRecord>;
  progress: CompileReporter;
  /** The embeddings whose vectors this node carries (the option, when the plan has the capabilities). */
  embeddings: CompileOptions['embeddings'];
  /** Per chunk file, in file order: each exported chunk id with the text hash of its record (when `embeddings`). */
  exportedChunks: Array<{ language: string; hashes: Map<string, string> }>;
  /** The graph's identity and write sequence as read, and the context's digest: the state this compile leaves. */
  graph: GraphState | undefined;
  contextKey: string | undefined;
  rejectedChunks: StateIds;
  rejectedFacts: StateIds;
  /** The entities whose attributes a hidden fact takes out, for the state. */
  attributesWithheld: StateIds;
  /** With a CompileState that holds (options.since): the chunks unchanged since are copied. */
  since: SinceRun | undefined;
}

/** What the entity scan learns for the later passes: the ranked entities and each source's importance. */
interface EntityScan {
  rankedEntities: EntityBrief[];
  /** The facts listed under each highlighted entity, filled by the facts pass. */
  highlighted: Map<string, FactBrief[]>;
}

/** What the facts pass learns: the top facts, the attributes hidden facts keep out of their entities, volatility. */
interface FactsPass {
  rankedFacts: FactBrief[];
  hiddenAttributes: Map<string, Set<string>>;
  /** A fact that changes often was exported: consumers should refresh sooner. */
  volatile: boolean;
}

/**
 * Compiles one website's graph into the node files of docs/contract.md#node-files, writing each through `sink`
 * (manifest.json last). Pure apart from the sink: no clock, randomness, disk or environment;
 * identical graph content, site and options give byte-identical files. Applies the export rules
 * to the rows the reader returns and validates every record against its schema before it is
 * written. A graph record that fails its schema (or names a URL off the website's hosts) is
 * left out, every reference to it is removed, and it is listed in result.rejected; a uuid in an
 * id field still throws AppError node.uuid_leak, and a document the compiler builds that fails
 * its schema throws publish.validation_failed.
 */
export function compileNode(
  reader: GraphReader,
  site: WebsiteInfo,
  options: CompileOptions,
  sink: NodeSink,
): CompileResult {
  const build = parseBuildTime(options.buildTime);
  const run = startCompile(reader, site, options, sink);
  const pass = <T>(name: CompilePass, work: () => T): T => {
    run.progress.startPass(name);
    const result = work();
    run.progress.endPass();
    return result;
  };
  try {
    return compilePasses(run, pass, site, options, build);
  } catch (error) {
    run.changes.abandon();
    throw error;
  }
}

/** The passes of compileNode, in the order of the reads that startCompile announced to the reader. */
function compilePasses(
  run: CompileRun,
  pass: <T>(name: CompilePass, work: () => T) => T,
  site: WebsiteInfo,
  options: CompileOptions,
  build: ReturnType<typeof parseBuildTime>,
): CompileResult {
  pass('sources', () => writeSources(run));
  const scan = pass('entity scan', () => scanEntities(run));
  const facts = pass('facts', () => writeFacts(run, scan.highlighted));
  pass('entities', () => writeEntities(run, facts.hiddenAttributes));
  pass('relationships', () => writeRelationships(run));
  const chunkFiles = pass('chunks', () => writeChunks(run));
  pass('qa', () => writeQa(run));
  const description = options.description ?? `Knowledge node of ${site.brand} (${site.domain}).`;
  const capabilities = capabilitiesOf(site.plan);
  pass('derived files', () => writeDerivedFiles(run, scan, facts.rankedFacts, description));
  pass('documents', () =>
    writeNodeDocuments(run, options, capabilities, { description, volatile: facts.volatile, chunkFiles }),
  );
  return pass('manifest', () => writeVersionsAndManifest(run, options, capabilities, build));
}

/**
 * Sets up a compile: the node's languages (rejecting the records of a language that is not a
 * BCP-47 tag), the counts, the change log, and the reads announced to the reader.
 */
function startCompile(reader: GraphReader, site: WebsiteInfo, options: CompileOptions, sink: NodeSink): CompileRun {
  const rejections = new RejectionLog();
  const capabilities = capabilitiesOf(site.plan);
  const embeddings =
    capabilities.includes('cap.advanced') && capabilities.includes('cap.embeddings') ? options.embeddings : undefined;
  const graph = reader.graphState?.();
  const key = options.codeKey === undefined ? undefined : contextKey(options.codeKey, site, options);
  const since = usableSince(options, graph, key, embeddings !== undefined);
  const readerLanguages = [...new Set(reader.languages())].sort(compareStrings);
  // A record's language names its file: records in a language that is not a BCP-47 tag are rejected whole.
  const nodeLanguages = readerLanguages.filter((language) => LanguageSchema.safeParse(language).success);
  for (const language of readerLanguages)
    if (!nodeLanguages.includes(language)) rejectLanguage(reader, language, rejections);
  const languages = nodeLanguages.length > 0 ? nodeLanguages : [site.defaultLanguage];
  const counts: CompileCounts = {
    entities: 0,
    facts: 0,
    relationships: 0,
    chunks: 0,
    qa: 0,
    sources: 0,
    withheld: {
      hiddenEntities: 0,
      hiddenFacts: 0,
      supersededFacts: 0,
      unresolvedRelationships: 0,
      staleQa: 0,
      orphanedFacts: 0,
    },
    rejected: rejections.counts,
  };
  // The reads of the passes, in their order: a reader may start
  // each ahead of the compile (src/ingest/graph/reader-thread.ts).
  reader.plan?.([
    { kind: 'sources' },
    ...languages.map((language) => ({ kind: 'entities' as const, language })),
    ...languages.map((language) => ({ kind: 'facts' as const, language, since: since?.facts })),
    ...languages.map((language) => ({ kind: 'entities' as const, language, since: since?.entities })),
    ...languages.map((language) => ({ kind: 'relationships' as const, language })),
    ...languages.map((language) => ({ kind: 'chunks' as const, language, since: since?.chunks })),
    ...languages.map((language) => ({ kind: 'qa' as const, language })),
    ...(embeddings === undefined
      ? []
      : languages.map((language) => ({ kind: 'chunkVectors' as const, language, model: embeddings.key }))),
  ]);
  const changes = new ChangeLog(sink, options.previous);
  const citations = new JsonlWriter<CitationRecord>(sink, 'citations.jsonl', CitationRecordSchema, changes);
  const urls = new WebsiteUrls(site);
  const sources = new SourceTable();
  const entityLanguage = new Map(languages.map((language) => [language, new IdSet()]));
  const factIdsByFile: AscendingIds[] = [];
  const ids: ExportedIds = {
    entity: (id) => isExportedEntity(entityLanguage, id),
    fact: (id) => factIdsByFile.some((file) => file.has(id)),
    source: (id) => sources.has(id),
    sourceUrl: (url, sourceId) =>
      urls.allowed(url) ?? (sourceId === null ? null : (sources.get(sourceId)?.url ?? null)),
  };
  return {
    reader,
    site,
    sink,
    urls,
    languages,
    rejections,
    counts,
    changes,
    emitted: [],
    sources,
    entityLanguage,
    hiddenEntities: new IdSet(),
    factIdsByFile,
    withheldFacts: new IdSet(),
    ids,
    citations,
    progress: new CompileReporter(options.onProgress),
    embeddings,
    exportedChunks: [],
    graph,
    contextKey: key,
    rejectedChunks: new StateIds(),
    rejectedFacts: new StateIds(),
    attributesWithheld: new StateIds(),
    since,
  };
}

/** Whether an entity is exported: its row of one language is written. */
function isExportedEntity(entityLanguage: Map<string, IdSet>, id: string): boolean {
  for (const exported of entityLanguage.values()) if (exported.has(id)) return true;
  return false;
}

/**
 * Adds the citation of an exported record whose source is exported. When the record's line
 * (`recordSame`) and its source's line are the validated previous version's bytes, so are all the
 * citation's fields: the previous version's citation of the record is written as it is.
 */
function cite(
  run: CompileRun,
  kind: CitationRecord['record_kind'],
  rec: { id: string; source_id?: string; provenance_method: CitationRecord['provenance_method']; confidence: number },
  recordSame: boolean,
): void {
  const n = rec.source_id === undefined ? undefined : run.sources.numberOf(rec.source_id);
  if (n === undefined) return;
  if (recordSame && run.sources.unchangedAt(n)) {
    const line = run.changes.previousCitation(kind, rec.id);
    if (line !== null) {
      run.citations.addSame(line);
      return;
    }
  }
  const source = run.sources.entry(n);
  const citation: CitationRecord = {
    schema_version: NODE_SCHEMA_VERSION,
    record_id: rec.id,
    record_kind: kind,
    source_id: rec.source_id!,
    source_url: source.url,
    retrieved_at: source.lastSeenAt,
    provenance_method: rec.provenance_method,
    confidence: rec.confidence,
  };
  run.citations.add(citation);
}

/**
 * cite() for a record whose line was copied from the live version: its row's source_id, as
 * sourceOf names it (cite reads no source_url, so none is worked out).
 */
function citeCopied(
  run: CompileRun,
  kind: CitationRecord['record_kind'],
  row: {
    id: string;
    sourceId: string | null;
    provenanceMethod: CitationRecord['provenance_method'];
    confidence: number;
  },
): void {
  const source = row.sourceId !== null && run.ids.source(row.sourceId) ? { source_id: row.sourceId } : {};
  cite(run, kind, { id: row.id, confidence: row.confidence, provenance_method: row.provenanceMethod, ...source }, true);
}

/** Closes a record file and lists it for the manifest. */
function finish(run: CompileRun, writer: { close(): WrittenFile }, producedBy: string, language?: string): WrittenFile {
  const file = writer.close();
  run.emitted.push(language === undefined ? { file, producedBy } : { file, language, producedBy });
  run.progress.endFile(file.records ?? 0);
  return file;
}

/**
 * Sources first: every other record may cite them. A source's url must be on the website's
 * hosts; a canonical_url that is not is left out, so the source falls back to its url.
 */
function writeSources(run: CompileRun): void {
  const { urls, sources } = run;
  const sourceWriter = new JsonlWriter<SourceRecord>(run.sink, 'sources.jsonl', SourceRecordSchema, run.changes);
  if (run.since) run.changes.trackFlips(sourceWriter.path, run.since.changedSources);
  const urlPolicy = (record: SourceRecord) => urlProblem(urls, record.url, 'url');
  run.progress.startFile(sourceWriter.path, () => sourceWriter.count);
  for (const row of uniqueById(run.reader.sources())) {
    run.progress.row();
    const record = projectSource(row, (url) => urls.allowed(url) !== null);
    const problem = sourceWriter.offer(record, row.id, urlPolicy);
    if (problem !== null) {
      run.rejections.add('sources', 'sources.jsonl', row.id, problem);
      continue;
    }
    sources.add(
      row.id,
      { url: record.canonical_url ?? record.url, lastSeenAt: record.last_seen_at },
      sourceWriter.lastPrevious === 'same',
    );
    if (run.since && sourceWriter.lastPrevious !== 'same') run.since.changedSources.add(row.id);
  }
  run.counts.sources = finish(run, sourceWriter, 'nodectl:records').records ?? 0;
  if (run.since) run.changes.finishFile(sourceWriter.path);
}

/**
 * Entities are scanned first (which are exported, valid, how they rank) and written after the
 * facts, so a hidden fact's value can be kept out of its entity's attributes (export rule 1)
 * without reading the much larger facts twice. An entity is validated here, before anything
 * can point at it; leaving attributes out later cannot make it invalid.
 */
function scanEntities(run: CompileRun): EntityScan {
  const { counts, entityLanguage, sources } = run;
  const topEntities = new TopK<EntityBrief, EntityRank>(
    PRIORITY_FEED_SIZE,
    compareEntityBriefs(run.site.defaultLanguage),
  );
  for (const language of run.languages) {
    const path = `entities.${language}.jsonl`;
    for (const row of uniqueById(run.reader.entities(language))) {
      run.progress.row();
      if (!isEntityExported(row)) {
        run.hiddenEntities.add(row.id);
        counts.withheld.hiddenEntities++;
        continue;
      }
      if (isExportedEntity(entityLanguage, row.id)) continue;
      const record = projectEntity(row, run.ids);
      const problem = checkRecord(EntityRecordSchema, record, `${path} ${row.id}`);
      if (problem !== null) {
        run.rejections.add('entities', path, row.id, problem);
        continue;
      }
      entityLanguage.get(language)!.add(row.id);
      // Importance is not part of the record: a value off the 1 to 5 scale is brought onto it for the ranked files.
      const rank = isImportance(row.importance)
        ? row
        : { id: row.id, name: row.name, language: row.language, importance: toImportance(row.importance) };
      // Briefs are built only for rows that can still rank: most rows of a large node cannot.
      if (topEntities.admits(rank))
        topEntities.push({
          id: row.id,
          type: row.type,
          name: row.name,
          language: row.language,
          importance: rank.importance,
          sourceUrl: record.source_url ?? null,
          file: path,
        });
      if (row.sourceId !== null) sources.raiseImportance(row.sourceId, row.importance);
    }
  }
  const rankedEntities = topEntities.result();
  const highlighted = new Map(rankedEntities.slice(0, HIGHLIGHT_ENTITIES).map((e) => [e.id, [] as FactBrief[]]));
  return { rankedEntities, highlighted };
}

/**
 * Writes each fact group's survivor (export rules: hidden and superseded candidates are withheld,
 * a fact of a hidden entity is orphaned), ranks the facts and lists the best ones under their
 * highlighted entity. With `since`, a fact unchanged since the live version's compile is that
 * version's line, copied with its citation, unless its source's line changed or its subject entity
 * is exported now and was not then, or the reverse: its line is then built from that line.
 */
function writeFacts(run: CompileRun, highlighted: Map<string, FactBrief[]>): FactsPass {
  const { counts, urls } = run;
  const hiddenAttributes = new Map<string, Set<string>>();
  const topFacts = new TopK<FactBrief, FactRank>(PRIORITY_FEED_SIZE, compareFactBriefs);
  // A canonical_url fact repeats the page's canonical url: it goes out under the same URL policy.
  const factUrlPolicy = (record: FactRecord) =>
    record.predicate === 'canonical_url' && typeof record.value === 'string'
      ? urlProblem(urls, record.value, 'value')
      : null;
  let volatile = false;
  for (const language of run.languages) {
    const path = `facts.${language}.jsonl`;
    const writer = new JsonlWriter<FactRecord>(run.sink, path, FactRecordSchema, run.changes);
    const exportedFacts = new AscendingIds();
    run.factIdsByFile.push(exportedFacts);
    run.progress.startFile(path, () => writer.count);
    for (const group of groupById(run.reader.facts(language, run.since?.facts))) {
      run.progress.row();
      let row = survivorOf(run, group, hiddenAttributes);
      if (row === null) continue;
      if (row.subjectEntityId !== null && run.hiddenEntities.has(row.subjectEntityId)) {
        counts.withheld.orphanedFacts++;
        run.withheldFacts.add(row.id);
        continue;
      }
      if ('unchanged' in row) {
        const live = liveLineOf(run, path, row.id, 'fact');
        const subject =
          row.subjectEntityId !== null && run.ids.entity(row.subjectEntityId) ? row.subjectEntityId : undefined;
        const lineSubject = subjectEntityIdOfLine(live);
        if (
          !sourceChanged(run, row.sourceId) &&
          (lineSubject === null ? liveRecord(live).subject_entity_id : lineSubject) === subject
        ) {
          // The check's fact key is the subject entity's when there is one: the line need not be parsed for it.
          const key =
            subject === undefined ? undefined : { subject_entity_id: subject, predicate: row.predicate, language };
          writer.addSame(live, row.id, key);
          exportedFacts.add(row.id);
          citeCopied(run, 'fact', row);
          volatile ||= row.freshness === 'frequent' || row.freshness === 'real_time';
          const list = subject === undefined ? undefined : highlighted.get(subject);
          if (list === undefined && !topFacts.admits(row)) continue;
          rankFact(topFacts, list, briefOf(row, liveRecord(live), path));
          continue;
        }
        row = factOfLiveLine(row, liveRecord(live));
      }
      const record = projectFact(row, run.ids);
      const problem = writer.offer(record, row.id, factUrlPolicy);
      if (problem !== null) {
        run.rejections.add('facts', path, row.id, problem);
        run.rejectedFacts.add(row.id);
        continue;
      }
      exportedFacts.add(row.id);
      cite(run, 'fact', record, writer.lastPrevious === 'same');
      volatile ||= row.freshness === 'frequent' || row.freshness === 'real_time';
      const list = record.subject_entity_id === undefined ? undefined : highlighted.get(record.subject_entity_id);
      if (list === undefined && !topFacts.admits(row)) continue;
      rankFact(topFacts, list, briefOf(row, record, path));
    }
    counts.facts += finish(run, writer, 'nodectl:records', language).records ?? 0;
  }
  for (const list of highlighted.values()) list.splice(FACTS_PER_ENTITY, list.sort(compareFactBriefs).length);
  for (const id of hiddenAttributes.keys()) run.attributesWithheld.add(id);
  return { rankedFacts: topFacts.result(), hiddenAttributes, volatile };
}

/**
 * The candidate of a fact group that may be exported, counting those withheld (hidden,
 * superseded), or null when none is left. Candidates of a fact unchanged since the live version
 * have no editorial row: the one active candidate is the survivor.
 */
function survivorOf(
  run: CompileRun,
  group: Array<FactRow | UnchangedFactRow>,
  hiddenAttributes: Map<string, Set<string>>,
): FactRow | UnchangedFactRow | null {
  const { withheld } = run.counts;
  const survivors: Array<FactRow | UnchangedFactRow> = [];
  // The read decides per fact, so a group is all whole or all unchanged.
  const unchanged = 'unchanged' in group[0]!;
  for (const row of group) {
    if ('unchanged' in row !== unchanged)
      throw new SinceMismatch(`fact ${row.id}: some of its candidates are unchanged, some not`);
    const reason = 'unchanged' in row ? (row.status === 'active' ? null : 'superseded') : factWithheldReason(row);
    if (reason === null) survivors.push(row);
    else if (reason === 'superseded') withheld.supersededFacts++;
    else {
      withheld.hiddenFacts++;
      const { subjectEntityId, predicate } = row as FactRow;
      if (subjectEntityId !== null) addHiddenAttribute(hiddenAttributes, subjectEntityId, predicate);
    }
  }
  if (survivors.length === 0) {
    run.withheldFacts.add(group[0]!.id);
    return null;
  }
  if (survivors.length === 1) return survivors[0]!;
  // pickSurvivor needs every field of each: a store that left two active candidates is compiled whole.
  if (unchanged) throw new SinceMismatch(`fact ${group[0]!.id} has ${survivors.length} active candidates`);
  return pickSurvivor(survivors as FactRow[]);
}

/** Adds an exported fact's brief to the ranking and, when its subject is highlighted, to that entity's list. */
function rankFact(topFacts: TopK<FactBrief, FactRank>, list: FactBrief[] | undefined, brief: FactBrief): void {
  topFacts.push(brief);
  if (list === undefined) return;
  list.push(brief);
  if (list.length >= FACTS_PER_ENTITY * 2) list.splice(FACTS_PER_ENTITY, list.sort(compareFactBriefs).length);
}

function briefOf(row: FactRank, record: FactRecord, file: string): FactBrief {
  return {
    id: row.id,
    subject: record.subject,
    subjectEntityId: record.subject_entity_id ?? null,
    predicate: row.predicate,
    value: record.value,
    display: record.display ?? null,
    unit: record.unit ?? null,
    currency: record.currency ?? null,
    importance: row.importance,
    language: record.language,
    sourceUrl: record.source_url ?? null,
    file,
  };
}

const liveRecord = (line: Buffer): FactRecord => JSON.parse(line.toString('utf8')) as FactRecord;

const IMPORTANCE_KEY = Buffer.from(',"importance":');
const SUBJECT_ENTITY_KEY = Buffer.from(',"subject_entity_id":"');

/**
 * The subject_entity_id of a fact line as projectFact writes it, without parsing the line:
 * undefined when it has none, null when the bytes do not say. The key, when there, is the field
 * just before the line's last `,"importance":` (every field after it is a scalar, and a quote
 * inside a string is escaped, so a value cannot end with the key's bytes).
 */
function subjectEntityIdOfLine(line: Buffer): string | undefined | null {
  const importance = line.lastIndexOf(IMPORTANCE_KEY);
  if (importance < 0) return null;
  const key = line.lastIndexOf(SUBJECT_ENTITY_KEY, importance);
  if (key < 0) return undefined;
  const start = key + SUBJECT_ENTITY_KEY.length;
  if (line[importance - 1] !== 0x22) return null;
  const id = line.toString('utf8', start, importance - 1);
  return /^[^"\\]+$/.test(id) ? id : null;
}

/** The row of an unchanged fact's survivor, from its line in the live version and its row (projectFact needs no more). */
function factOfLiveLine(row: UnchangedFactRow, record: FactRecord): FactRow {
  return {
    id: row.id,
    subject: record.subject,
    subjectEntityId: row.subjectEntityId,
    predicate: record.predicate,
    value: record.value,
    language: record.language,
    confidence: row.confidence,
    provenanceMethod: row.provenanceMethod,
    unit: record.unit ?? null,
    currency: record.currency ?? null,
    display: record.display ?? null,
    importance: row.importance,
    freshness: row.freshness,
    validFrom: record.valid_from ?? null,
    validUntil: record.valid_until ?? null,
    sourceId: row.sourceId,
    sourceUrl: row.sourceUrl,
    status: 'active',
    editorial: { hidden: false, pinned: false, editorialStatus: null, reviewedBy: null, originalValue: null },
  };
}

/**
 * Writes the entities the scan kept, each in its one language, without the attributes of its
 * hidden facts. With `since`, an entity unchanged since the live version's compile is that
 * version's line, copied with its citation, unless its source's line changed: its line is then
 * built from that line and its row's source.
 */
function writeEntities(run: CompileRun, hiddenAttributes: Map<string, Set<string>>): void {
  for (const language of run.languages) {
    const path = `entities.${language}.jsonl`;
    const writer = new JsonlWriter(run.sink, path, EntityRecordSchema, run.changes);
    if (run.since) run.changes.trackFlips(path, run.since.flippedEntities);
    run.progress.startFile(path, () => writer.count);
    for (let row of uniqueById(run.reader.entities(language, run.since?.entities))) {
      run.progress.row();
      if (!run.entityLanguage.get(language)!.has(row.id)) continue;
      if ('unchanged' in row) {
        const live = liveLineOf(run, path, row.id, 'entity');
        if (!sourceChanged(run, row.sourceId)) {
          writer.addSame(live, row.id);
          citeCopied(run, 'entity', row);
          continue;
        }
        row = entityOfLiveLine(row, live);
      }
      const record = projectEntity(row, run.ids, hiddenAttributes.get(row.id));
      writer.add(record, row.id);
      cite(run, 'entity', record, writer.lastPrevious === 'same');
    }
    run.counts.entities += finish(run, writer, 'nodectl:records', language).records ?? 0;
    if (run.since) run.changes.finishFile(path);
  }
}

/**
 * The live line of a record a `since` read said is unchanged: a record without one there means
 * the state does not describe the live version (the compile starts again without it).
 */
function liveLineOf(run: CompileRun, path: string, id: string, kind: string): Buffer {
  const live = run.changes.liveLine(path, id);
  if (live === undefined)
    throw new SinceMismatch(`${path}: ${kind} ${id} is unchanged since the live version but has no line there`);
  return live;
}

/** Whether a record's source has another line than in the live version (or none where it had one, or the reverse). */
function sourceChanged(run: CompileRun, sourceId: string | null): boolean {
  return sourceId !== null && run.since!.changedSources.has(sourceId);
}

/** The row of an unchanged entity, from its line in the live version and its row's source (projectEntity needs no more). */
function entityOfLiveLine(row: UnchangedEntityRow, line: Buffer): EntityRow {
  const record = JSON.parse(line.toString('utf8')) as EntityRecord;
  return {
    id: row.id,
    type: record.type,
    canonicalKey: '',
    name: record.name,
    language: record.language,
    confidence: row.confidence,
    provenanceMethod: row.provenanceMethod,
    sourceId: row.sourceId,
    sourceUrl: row.sourceUrl,
    importance: 0,
    attributes: record.attributes ?? {},
    hidden: false,
  };
}

/** Writes the relationships whose both ends are exported. */
function writeRelationships(run: CompileRun): void {
  for (const language of run.languages) {
    const path = `relationships.${language}.jsonl`;
    const writer = new JsonlWriter(run.sink, path, RelationshipRecordSchema, run.changes);
    run.progress.startFile(path, () => writer.count);
    for (const row of uniqueById(run.reader.relationships(language))) {
      run.progress.row();
      if (!isRelationshipExported(row, run.ids.entity)) {
        run.counts.withheld.unresolvedRelationships++;
        continue;
      }
      const record = projectRelationship(row, run.ids);
      const problem = writer.offer(record, row.id);
      if (problem !== null) {
        run.rejections.add('relationships', path, row.id, problem);
        continue;
      }
      cite(run, 'relationship', record, writer.lastPrevious === 'same');
    }
    run.counts.relationships += finish(run, writer, 'nodectl:records', language).records ?? 0;
  }
}

/**
 * Writes the text chunks; answers each chunk file for the embeddings manifest. With `since`, a
 * chunk unchanged since the live version's compile is that version's line, copied, unless an
 * entity it mentions was exported then and is not now, or the reverse, or its source's line
 * changed: its line is then built from that line's text and its row's references.
 */
function writeChunks(run: CompileRun): Array<{ path: string; language: string; records: number }> {
  const chunkFiles: Array<{ path: string; language: string; records: number }> = [];
  for (const language of run.languages) {
    const path = `chunks.${language}.jsonl`;
    const writer = new JsonlWriter(run.sink, path, ChunkRecordSchema, run.changes);
    run.progress.startFile(path, () => writer.count);
    const hashes = new Map<string, string>();
    for (let row of uniqueById(run.reader.chunks(language, run.since?.chunks))) {
      run.progress.row();
      if ('unchanged' in row) {
        const live = liveLineOf(run, path, row.id, 'chunk');
        if (!referencesFlipped(run, row)) {
          writer.addSame(live, row.id);
          continue;
        }
        row = chunkOfLiveLine(row, live);
      }
      const problem = writer.offer(projectChunk(row, run.ids), row.id);
      if (problem !== null) {
        run.rejections.add('chunks', path, row.id, problem);
        run.rejectedChunks.add(row.id);
      } else if (run.embeddings !== undefined) hashes.set(row.id, chunkTextHash(row.text));
    }
    if (run.embeddings !== undefined) run.exportedChunks.push({ language, hashes });
    const file = finish(run, writer, 'nodectl:records', language);
    run.counts.chunks += file.records ?? 0;
    chunkFiles.push({ path, language, records: file.records ?? 0 });
  }
  return chunkFiles;
}

/** Whether an entity the chunk mentions was exported in the live version and is not now, or the reverse, or its source's line changed. */
function referencesFlipped(run: CompileRun, row: UnchangedChunkRow): boolean {
  return sourceChanged(run, row.sourceId) || row.mentionIds.some((id) => run.since!.flippedEntities.has(id));
}

/**
 * The row of an unchanged chunk, from its line in the live version (the fields its row gave it
 * there) and its row's references: projectChunk keeps the exported ones, which exist.
 */
function chunkOfLiveLine(row: UnchangedChunkRow, line: Buffer): ChunkRow {
  const record = JSON.parse(line.toString('utf8')) as ChunkRecord;
  return {
    id: row.id,
    text: record.text,
    tokensEstimate: record.tokens_estimate,
    language: record.language,
    entityIds: row.mentionIds,
    sourceId: row.sourceId,
    headingPath: [],
    position: 0,
  };
}

/** Writes the questions and answers that are exported and not made from a withheld fact. */
function writeQa(run: CompileRun): void {
  for (const language of run.languages) {
    const path = `qa.${language}.jsonl`;
    const writer = new JsonlWriter(run.sink, path, QaRecordSchema, run.changes);
    run.progress.startFile(path, () => writer.count);
    for (const row of uniqueById(run.reader.qa(language))) {
      run.progress.row();
      // A Q&A templated from a withheld fact would repeat its value: it goes with the fact.
      if (!isQaExported(row) || row.factIds.some((id) => run.withheldFacts.has(id) && !run.ids.fact(id))) {
        run.counts.withheld.staleQa++;
        continue;
      }
      const problem = writer.offer(projectQa(row, run.ids), row.id);
      if (problem !== null) run.rejections.add('qa', path, row.id, problem);
    }
    run.counts.qa += finish(run, writer, 'nodectl:records', language).records ?? 0;
  }
}

/**
 * The files made from the records: citations, the priority feed,
 * schema.jsonld, the AI sitemap, llms.txt and llms-full.txt.
 */
function writeDerivedFiles(run: CompileRun, scan: EntityScan, rankedFacts: FactBrief[], description: string): void {
  const { sink, emitted, site, languages, counts } = run;
  const { rankedEntities, highlighted } = scan;
  emitted.push({ file: run.citations.close(), producedBy: 'nodectl:citations' });
  writePriorityFeed(sink, rankedEntities, rankedFacts, emitted);

  const jsonLdEntities = rankedEntities
    .slice(0, HIGHLIGHT_ENTITIES)
    .filter((e) => e.importance >= JSONLD_MIN_IMPORTANCE);
  emitted.push({
    file: writeDocument(
      sink,
      'schema.jsonld',
      SchemaJsonLdSchema,
      buildSchemaJsonLd(schemaJsonLdBase(site.domain), jsonLdEntities, highlighted),
    ),
    producedBy: 'nodectl:schema-org',
  });
  emitted.push({
    file: writeText(sink, 'sitemap-ai.xml', renderSitemap(selectSitemapEntries(() => run.sources.entries()))),
    producedBy: 'nodectl:sitemap',
  });

  const recordFiles = RECORD_KINDS.flatMap(([kind, title]) =>
    languages.map((language) => {
      const path = `${kind}.${language}.jsonl`;
      return {
        path,
        title: `${title} (${language})`,
        records: emitted.find((e) => e.file.path === path)?.file.records ?? 0,
      };
    }),
  );
  recordFiles.push({ path: 'sources.jsonl', title: 'Sources', records: counts.sources });
  const otherFiles = [
    { path: 'priority-feed.jsonl', title: 'Priority feed', note: 'the most important records, ranked' },
    { path: 'citations.jsonl', title: 'Citations', note: 'where each record comes from and how to cite it' },
    { path: 'schema.jsonld', title: 'schema.org graph', note: 'high-importance entities and facts as JSON-LD' },
    { path: 'sitemap-ai.xml', title: 'AI sitemap', note: 'source pages with their importance' },
    { path: 'changes.jsonl', title: 'Changes', note: 'records added, changed or removed since the previous version' },
    { path: 'versions.json', title: 'Versions', note: 'this version and earlier ones' },
    { path: 'mcp.json', title: 'MCP manifest', note: 'how to query this knowledge through MCP' },
  ];
  emitted.push({
    file: writeText(
      sink,
      'llms.txt',
      renderLlmsTxt({
        brand: site.brand,
        domain: site.domain,
        description,
        languages,
        recordFiles,
        otherFiles,
        topEntities: rankedEntities,
      }),
    ),
    producedBy: 'nodectl:llms',
  });
  const fullEntities = rankedEntities
    .slice(0, HIGHLIGHT_ENTITIES)
    .map((entity) => ({ entity, facts: highlighted.get(entity.id) ?? [] }));
  emitted.push({
    file: writeText(
      sink,
      'llms-full.txt',
      renderLlmsFull({
        brand: site.brand,
        domain: site.domain,
        description,
        entities: fullEntities,
        totalEntities: counts.entities,
        totalFacts: counts.facts,
        recordFiles,
      }),
    ),
    producedBy: 'nodectl:llms',
  });
}

/**
 * The node's documents that the plan's capabilities choose (ai.json,
 * mcp.json, trust.json, the embeddings manifest), then changes.jsonl.
 */
function writeNodeDocuments(
  run: CompileRun,
  options: CompileOptions,
  capabilities: ReturnType<typeof capabilitiesOf>,
  derived: {
    description: string;
    volatile: boolean;
    chunkFiles: Array<{ path: string; language: string; records: number }>;
  },
): void {
  const { sink, emitted, site, languages } = run;
  const advanced = capabilities.includes('cap.advanced');
  const embeddings = advanced && capabilities.includes('cap.embeddings');
  const consumes = [
    'llms.txt',
    'versions.json',
    'changes.jsonl',
    ...languages.flatMap((l) => RECORD_KINDS.map(([kind]) => `${kind}.${l}.jsonl`)),
    'sources.jsonl',
    'citations.jsonl',
    'priority-feed.jsonl',
    'schema.jsonld',
    'sitemap-ai.xml',
    'llms-full.txt',
    'mcp.json',
  ];
  if (advanced) consumes.push('trust.json', 'openapi.json');
  if (embeddings) consumes.push('embeddings-manifest.json');
  const ai = buildAiJson(site, {
    license: options.license ?? 'all-rights-reserved',
    description: derived.description,
    ...(options.contact === undefined ? {} : { contact: options.contact }),
    languages,
    refreshHintSeconds: derived.volatile ? 3600 : 86400,
    consumes,
  });
  emitted.push({ file: writeDocument(sink, 'ai.json', AiJsonSchema, ai), producedBy: 'nodectl:ai' });
  emitted.push({
    file: writeDocument(sink, 'mcp.json', McpManifestSchema, buildMcpManifest(site, capabilities)),
    producedBy: 'nodectl:mcp',
  });
  if (advanced)
    emitted.push({
      file: writeDocument(sink, 'trust.json', TrustSchema, buildTrust(site)),
      producedBy: 'nodectl:trust',
    });
  if (embeddings) {
    const vectors = writeVectorFile(run);
    emitted.push({
      file: writeDocument(
        sink,
        'embeddings-manifest.json',
        EmbeddingsManifestSchema,
        buildEmbeddingsManifest(derived.chunkFiles, vectors),
      ),
      producedBy: 'nodectl:embeddings',
    });
  }
  emitted.push({ file: run.changes.close(emitted.map((e) => e.file)), producedBy: 'nodectl:changes' });
}

/**
 * The hash a stored vector keeps of the text it was embedded from: sha256, first 16 bytes, hex
 * (src/ingest/embeddings textHashOf, as hex).
 */
export function chunkTextHash(text: string): string {
  return createHash('sha256').update(text).digest().subarray(0, 16).toString('hex');
}

/**
 * Writes VECTOR_FILE: the stored vector of each exported chunk whose text it was embedded from,
 * one little-endian float32 row per chunk, chunk files in order, then by chunk id (the order the
 * graph is read in). A vector of a changed text (not embedded again yet) or of another length is
 * left out, and so is the file when no chunk has a vector. Undefined when the node carries none.
 */
function writeVectorFile(run: CompileRun): WrittenVectors | undefined {
  const { embeddings } = run;
  if (embeddings === undefined) return undefined;
  const rowBytes = embeddings.dimensions * 4;
  const chunkIds: string[] = [];
  const listed = new Set<string>();
  let file: TrackedFile | undefined;
  for (const { language, hashes } of run.exportedChunks) {
    // Read to the end even when nothing is kept: the reader's plan holds this read.
    for (const row of run.reader.chunkVectors(language, embeddings.key)) {
      if (hashes.get(row.chunkId) !== row.textHash || row.vector.length !== rowBytes || listed.has(row.chunkId))
        continue;
      file ??= new TrackedFile(run.sink, VECTOR_FILE);
      file.writeBytes(row.vector);
      listed.add(row.chunkId);
      chunkIds.push(row.chunkId);
    }
  }
  if (file === undefined) return undefined;
  run.emitted.push({ file: file.close(), producedBy: 'nodectl:embeddings' });
  return { model: embeddings.model, dimensions: embeddings.dimensions, chunkIds };
}

/** The version (from the digest of everything written so far), versions.json, openapi.json, and manifest.json last. */
function writeVersionsAndManifest(
  run: CompileRun,
  options: CompileOptions,
  capabilities: ReturnType<typeof capabilitiesOf>,
  build: ReturnType<typeof parseBuildTime>,
): CompileResult {
  const { sink, emitted, site } = run;
  // Everything so far is version-free: its digest gives the ULID's random part.
  const nodeVersion = nodeVersionUlid(build.ms, contentDigest(emitted.map((e) => e.file)));
  const label = nodeVersionLabel(build.iso, options.previous?.label ?? null);
  const current = { node_version: nodeVersion, node_version_label: label, generated_at: build.iso };
  emitted.push({
    file: writeDocument(sink, 'versions.json', VersionsSchema, buildVersions(current, options.previous)),
    producedBy: 'nodectl:versions',
  });
  if (capabilities.includes('cap.advanced'))
    emitted.push({
      file: writeDocument(
        sink,
        'openapi.json',
        OpenApiSchema,
        buildOpenApi(site, label, emitted.map((e) => e.file).concat({ path: 'openapi.json', checksum: '', bytes: 0 })),
      ),
      producedBy: 'nodectl:openapi',
    });

  const files = emitted
    .map((e) => manifestEntry(e.file, e.language, e.producedBy))
    .sort((a, b) => compareStrings(a.path, b.path));
  const manifest: Manifest = {
    schema_version: NODE_SCHEMA_VERSION,
    node_version: nodeVersion,
    node_version_label: label,
    brand: site.brand,
    domain: site.domain,
    website_id: site.websiteId,
    generated_at: build.iso,
    capabilities,
    languages: run.languages,
    default_language: site.defaultLanguage,
    trust_tier: trustTierOf(site),
    files,
  };
  const manifestFile = writeDocument(sink, 'manifest.json', ManifestSchema, manifest);
  const state = compileStateOf(
    nodeVersion,
    run.contextKey,
    run.graph,
    run.rejectedChunks,
    run.rejectedFacts,
    run.attributesWithheld,
  );
  return {
    nodeVersion,
    nodeVersionLabel: label,
    generatedAt: build.iso,
    files: [...files, manifestEntry(manifestFile, undefined, 'nodectl:manifest')],
    counts: run.counts,
    rejected: run.rejections.list(),
    ...(state === undefined ? {} : { state }),
  };
}

/**
 * Reports every record of a language that is not a BCP-47 tag as rejected: such a language can
 * name no node file, so none of its records is read further.
 */
function rejectLanguage(reader: GraphReader, language: string, rejections: RejectionLog): void {
  const problem = {
    path: 'language',
    message: LanguageSchema.safeParse(language).error?.issues[0]?.message ?? 'must be a BCP-47 language tag',
  };
  const kinds: Array<[RejectedKind, () => Iterable<{ id: string }>]> = [
    ['entities', () => reader.entities(language)],
    ['facts', () => reader.facts(language)],
    ['relationships', () => reader.relationships(language)],
    ['chunks', () => reader.chunks(language)],
    ['qa', () => reader.qa(language)],
  ];
  for (const [kind, rows] of kinds)
    for (const row of uniqueById(rows())) rejections.add(kind, `${kind}.${language}.jsonl`, row.id, problem);
}

/** The URL policy's verdict on the field `path` of a record, as a problem that rejects it. */
function urlProblem(urls: WebsiteUrls, url: string, path: string): SchemaProblem | null {
  const message = urls.problem(url);
  return message === null ? null : { path, message, issues: [] };
}

function isImportance(value: number): boolean {
  return Number.isInteger(value) && value >= 1 && value <= 5;
}

/** A value brought onto the 1 to 5 importance scale (1 when it is not a number). */
function toImportance(value: number): number {
  return Number.isFinite(value) ? Math.min(5, Math.max(1, Math.round(value))) : 1;
}

/** Records the attribute keys (the predicate and its camelCase form) of a hidden fact of `entityId`. */
function addHiddenAttribute(hidden: Map<string, Set<string>>, entityId: string, predicate: string): void {
  const keys = hidden.get(entityId) ?? new Set<string>();
  keys.add(predicate).add(predicate.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()));
  hidden.set(entityId, keys);
}

function writeText(sink: NodeSink, path: string, text: string): WrittenFile {
  const file = new TrackedFile(sink, path);
  file.write(text);
  return file.close();
}

function writeDocument(sink: NodeSink, path: string, schema: z.ZodType, value: unknown): WrittenFile {
  assertValid(schema, value, path);
  return writeText(sink, path, renderJson(value));
}

function writePriorityFeed(sink: NodeSink, entities: EntityBrief[], facts: FactBrief[], emitted: Emitted[]): void {
  type Ranked = {
    importance: number;
    kind: 'entity' | 'fact';
    id: string;
    language: string;
    label: string;
    sourceUrl: string | null;
    file: string;
  };
  const all: Ranked[] = [
    ...entities.map((e) => ({
      importance: e.importance,
      kind: 'entity' as const,
      id: e.id,
      language: e.language,
      label: e.name,
      sourceUrl: e.sourceUrl,
      file: e.file,
    })),
    ...facts.map((f) => ({
      importance: f.importance,
      kind: 'fact' as const,
      id: f.id,
      language: f.language,
      label: `${f.subject}: ${f.predicate} = ${briefText(f)}`,
      sourceUrl: f.sourceUrl,
      file: f.file,
    })),
  ];
  all.sort((a, b) => b.importance - a.importance || compareStrings(a.kind, b.kind) || compareStrings(a.id, b.id));
  const writer = new JsonlWriter<PriorityFeedRecord>(sink, 'priority-feed.jsonl', PriorityFeedRecordSchema);
  all.slice(0, PRIORITY_FEED_SIZE).forEach((r, i) => {
    const record: PriorityFeedRecord = {
      schema_version: NODE_SCHEMA_VERSION,
      rank: i + 1,
      record_id: r.id,
      record_kind: r.kind,
      file: r.file,
      importance: r.importance,
      language: r.language,
      label: r.label,
    };
    if (r.sourceUrl !== null) record.source_url = r.sourceUrl;
    writer.add(record);
  });
  emitted.push({ file: writer.close(), producedBy: 'nodectl:priority-feed' });
}
