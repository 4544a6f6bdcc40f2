import { createHash } from 'node:crypto';
import type {
  ChunkRow,
  EntityRow,
  FactRow,
  GraphReader,
  GraphState,
  PlannedRead,
  QaRow,
  RelationshipRow,
  UnchangedChunkRow,
  UnchangedEntityRow,
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
import {
  compileStateOf,
  contextKey,
  SinceMismatch,
  StateIds,
  usableSince,
  type SinceRun,
  type StateLists,
} from './compile-since.js';
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
  canonicalUrlOf,
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
  /** The ids the state lists: rejected chunks, facts and entities, withheld facts, and the entities whose attributes a hidden fact takes out. */
  stateLists: StateLists;
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
    { kind: 'sources', since: since?.sources },
    ...languages.map((language) => ({ kind: 'entities' as const, language, since: since?.entities })),
    ...languages.flatMap((language): PlannedRead[] =>
      since?.facts === undefined
        ? [{ kind: 'facts', language }]
        : [
            { kind: 'factsSince', language, since: since.facts },
            { kind: 'supersededCandidates', language },
          ],
    ),
    ...languages.map((language) => ({ kind: 'entities' as const, language, since: since?.entities })),
    ...languages.map((language) => ({ kind: 'relationships' as const, language, since: since?.relationships })),
    ...languages.map((language) => ({ kind: 'chunks' as const, language, since: since?.chunks })),
    ...languages.map((language) => ({ kind: 'qa' as const, language, since: since?.qa })),
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
    stateLists: {
      rejectedChunks: new StateIds(),
      rejectedFacts: new StateIds(),
      withheldFacts: new StateIds(),
      attributesWithheld: new StateIds(),
      rejectedEntities: new StateIds(),
    },
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
  if (n !== undefined) citeSource(run, kind, rec, { id: rec.source_id!, n }, recordSame);
}

/** cite() once the record's source is known to be exported: `source.n` is its entry in the source table. */
function citeSource(
  run: CompileRun,
  kind: CitationRecord['record_kind'],
  rec: { id: string; provenance_method: CitationRecord['provenance_method']; confidence: number },
  source: { id: string; n: number },
  recordSame: boolean,
): void {
  const { n } = source;
  if (recordSame && run.sources.unchangedAt(n)) {
    const line = run.changes.previousCitation(kind, rec.id);
    if (line !== null) {
      run.citations.addSame(line);
      return;
    }
  }
  const entry = run.sources.entry(n);
  const citation: CitationRecord = {
    schema_version: NODE_SCHEMA_VERSION,
    record_id: rec.id,
    record_kind: kind,
    source_id: source.id,
    source_url: entry.url,
    retrieved_at: entry.lastSeenAt,
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
  const n = row.sourceId === null ? undefined : run.sources.numberOf(row.sourceId);
  if (n === undefined) return;
  const rec = { id: row.id, confidence: row.confidence, provenance_method: row.provenanceMethod };
  citeSource(run, kind, rec, { id: row.sourceId!, n }, true);
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
 * hosts; a canonical_url that is not is left out, so the source falls back to its url. With
 * `since`, a source unchanged since the live version's compile is that version's line, copied
 * (one that had no line is written again).
 */
function writeSources(run: CompileRun): void {
  const { urls, sources } = run;
  const sourceWriter = new JsonlWriter<SourceRecord>(run.sink, 'sources.jsonl', SourceRecordSchema, run.changes);
  if (run.since) run.changes.trackFlips(sourceWriter.path, run.since.changedSources);
  const urlPolicy = (record: SourceRecord) => urlProblem(urls, record.url, 'url');
  const canonicalAllowed = (url: string) => urls.allowed(url) !== null;
  run.progress.startFile(sourceWriter.path, () => sourceWriter.count);
  for (const row of uniqueById(run.reader.sources(run.since?.sources))) {
    run.progress.row();
    if (row.unchanged === true && copyLiveLine(run, sourceWriter, row.id)) {
      const url = canonicalUrlOf(row, canonicalAllowed) ?? row.url;
      sources.add(row.id, { url, lastSeenAt: row.lastSeenAt }, true);
      continue;
    }
    const record = projectSource(row, canonicalAllowed);
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
 * can point at it; leaving attributes out later cannot make it invalid. With `since`, an entity
 * unchanged since the live version's compile passed these checks there (one that compile
 * rejected is read whole): it comes without its attributes, and its record is not built again.
 */
function scanEntities(run: CompileRun): EntityScan {
  const { counts, entityLanguage, sources } = run;
  const topEntities = new TopK<EntityBrief, EntityRank>(
    PRIORITY_FEED_SIZE,
    compareEntityBriefs(run.site.defaultLanguage),
  );
  for (const language of run.languages) {
    const path = `entities.${language}.jsonl`;
    for (const row of uniqueById(run.reader.entities(language, run.since?.entities))) {
      run.progress.row();
      if (!isEntityExported(row)) {
        run.hiddenEntities.add(row.id);
        counts.withheld.hiddenEntities++;
        continue;
      }
      if (isExportedEntity(entityLanguage, row.id)) continue;
      const sourceUrl =
        'unchanged' in row ? run.ids.sourceUrl(row.sourceUrl, row.sourceId) : checkedEntity(run, path, row);
      if (sourceUrl === undefined) continue;
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
          sourceUrl,
          file: path,
        });
      if (row.sourceId !== null) sources.raiseImportance(row.sourceId, row.importance);
    }
  }
  const rankedEntities = topEntities.result();
  const highlighted = new Map(rankedEntities.slice(0, HIGHLIGHT_ENTITIES).map((e) => [e.id, [] as FactBrief[]]));
  return { rankedEntities, highlighted };
}

/** The source_url of an entity's record, or undefined when the record is rejected (listed for the state). */
function checkedEntity(run: CompileRun, path: string, row: EntityRow): string | null | undefined {
  const record = projectEntity(row, run.ids);
  const problem = checkRecord(EntityRecordSchema, record, `${path} ${row.id}`);
  if (problem === null) return record.source_url ?? null;
  run.rejections.add('entities', path, row.id, problem);
  run.stateLists.rejectedEntities.add(row.id);
  return undefined;
}

/** What the facts pass gathers across its files. */
interface FactsGathered {
  hiddenAttributes: Map<string, Set<string>>;
  topFacts: TopK<FactBrief, FactRank>;
  highlighted: Map<string, FactBrief[]>;
  volatile: boolean;
}

/** One facts file as the pass writes it. */
interface FactsFile {
  path: string;
  language: string;
  writer: JsonlWriter<FactRecord>;
  exported: AscendingIds;
  /** factUrlProblem under the website's URL policy, made once a file. */
  urlPolicy: (record: FactRecord) => SchemaProblem | null;
}

/**
 * Writes each fact group's survivor (export rules: hidden and superseded candidates are withheld,
 * a fact of a hidden entity is orphaned), ranks the facts and lists the best ones under their
 * highlighted entity. With `since`, only the facts that changed since the live version's compile
 * are read (reader.ts FACTS_SINCE_SQL): every other line of the live file is copied as it is,
 * with its citation, between them.
 */
function writeFacts(run: CompileRun, highlighted: Map<string, FactBrief[]>): FactsPass {
  const gathered: FactsGathered = {
    hiddenAttributes: new Map(),
    topFacts: new TopK<FactBrief, FactRank>(PRIORITY_FEED_SIZE, compareFactBriefs),
    highlighted,
    volatile: false,
  };
  for (const language of run.languages) {
    const path = `facts.${language}.jsonl`;
    const file: FactsFile = {
      path,
      language,
      writer: new JsonlWriter<FactRecord>(run.sink, path, FactRecordSchema, run.changes),
      exported: new AscendingIds(),
      urlPolicy: (record) => factUrlProblem(run.urls, record),
    };
    run.factIdsByFile.push(file.exported);
    run.progress.startFile(path, () => file.writer.count);
    const since = run.since?.facts;
    if (since === undefined)
      for (const group of groupById(run.reader.facts(language))) {
        run.progress.row();
        writeFact(run, gathered, file, group);
      }
    else {
      // The live file's superseded candidates are counted in the graph: those of the facts read here are counted as they are read.
      let notSurvivors = 0;
      for (const group of groupById(run.reader.factsSince(language, since))) {
        const id = group[0]!.id;
        run.since!.readFacts.add(id);
        copyLiveFacts(run, gathered, file, id);
        run.progress.row();
        if (!('gone' in group[0]!)) {
          const candidates = group as FactRow[];
          for (const row of candidates) if (row.status !== 'active') notSurvivors++;
          writeFact(run, gathered, file, candidates);
        }
        // Its live line, when it was not written again, is gone.
        run.changes.liveLine(path, id);
      }
      copyLiveFacts(run, gathered, file, null);
      run.counts.withheld.supersededFacts += run.reader.supersededCandidates(language) - notSurvivors;
    }
    run.counts.facts += finish(run, file.writer, 'nodectl:records', language).records ?? 0;
  }
  for (const list of highlighted.values()) list.splice(FACTS_PER_ENTITY, list.sort(compareFactBriefs).length);
  for (const id of gathered.hiddenAttributes.keys()) run.stateLists.attributesWithheld.add(id);
  return {
    rankedFacts: gathered.topFacts.result(),
    hiddenAttributes: gathered.hiddenAttributes,
    volatile: gathered.volatile,
  };
}

/** A canonical_url fact repeats the page's canonical url: it goes out under the same URL policy. */
function factUrlProblem(urls: WebsiteUrls, record: FactRecord): SchemaProblem | null {
  return record.predicate === 'canonical_url' && typeof record.value === 'string'
    ? urlProblem(urls, record.value, 'value')
    : null;
}

/** Writes the survivor of one fact's candidates, or counts why none is written. */
function writeFact(run: CompileRun, gathered: FactsGathered, file: FactsFile, group: FactRow[]): void {
  const row = survivorOf(run, group, gathered.hiddenAttributes);
  if (row === null) return;
  if (row.subjectEntityId !== null && run.hiddenEntities.has(row.subjectEntityId)) {
    run.counts.withheld.orphanedFacts++;
    run.withheldFacts.add(row.id);
    run.stateLists.withheldFacts.add(row.id);
    return;
  }
  const record = projectFact(row, run.ids);
  const problem = file.writer.offer(record, row.id, file.urlPolicy);
  if (problem !== null) {
    run.rejections.add('facts', file.path, row.id, problem);
    run.stateLists.rejectedFacts.add(row.id);
    return;
  }
  file.exported.add(row.id);
  cite(run, 'fact', record, file.writer.lastPrevious === 'same');
  gatherFact(gathered, row, row.freshness, record.subject_entity_id, () => briefOf(row, record, file.path));
}

/** Notes an exported fact's freshness and ranks it; its brief is built only when it ranks. */
function gatherFact(
  gathered: FactsGathered,
  rank: FactRank,
  freshness: string,
  subjectEntityId: string | undefined,
  brief: () => FactBrief,
): void {
  gathered.volatile ||= freshness === 'frequent' || freshness === 'real_time';
  const list = subjectEntityId === undefined ? undefined : gathered.highlighted.get(subjectEntityId);
  if (list === undefined && !gathered.topFacts.admits(rank)) return;
  rankFact(gathered.topFacts, list, brief());
}

/**
 * Copies the live version's fact lines whose ids come before `until` (to the end with null): facts
 * the graph has not changed since that version's compile. A line still stands while its subject
 * entity and its source are exported as they were; a fact whose subject or source changed is one
 * the read names, so a line that does not stand means the state did not hold.
 */
function copyLiveFacts(run: CompileRun, gathered: FactsGathered, file: FactsFile, until: string | null): void {
  for (
    let id = run.changes.nextLiveId(file.path);
    id !== null && (until === null || id < until);
    id = run.changes.nextLiveId(file.path)
  ) {
    run.progress.row();
    const line = run.changes.liveLine(file.path, id)!;
    const fact = liveFactOf(line);
    if (fact.subjectEntityId !== undefined && !run.ids.entity(fact.subjectEntityId))
      throw new SinceMismatch(`${file.path}: fact ${id} was not read, and its subject entity is no longer exported`);
    if (sourceChanged(run, fact.sourceId ?? null))
      throw new SinceMismatch(`${file.path}: fact ${id} was not read, and its source's line changed`);
    // The check's fact key is the subject entity's when there is one: the line need not be parsed for it.
    const key =
      fact.subjectEntityId === undefined
        ? undefined
        : { subject_entity_id: fact.subjectEntityId, predicate: fact.predicate, language: file.language };
    file.writer.addSame(line, id, key);
    file.exported.add(id);
    // Its source's line is the live version's, so the source is exported as it was: the line names it when it was.
    if (fact.sourceId !== undefined) {
      const citation = run.changes.previousCitation('fact', id);
      if (citation === null) throw new SinceMismatch(`citations.jsonl: fact ${id} was not read, and had no citation`);
      run.citations.addSame(citation);
    }
    const rank = { id, importance: fact.importance, predicate: fact.predicate };
    gatherFact(gathered, rank, fact.freshness, fact.subjectEntityId, () => briefOf(rank, liveRecord(line), file.path));
  }
}

/**
 * The candidate of a fact group that may be exported, counting those withheld (hidden,
 * superseded), or null when none is left.
 */
function survivorOf(run: CompileRun, group: FactRow[], hiddenAttributes: Map<string, Set<string>>): FactRow | null {
  const { withheld } = run.counts;
  const survivors: FactRow[] = [];
  for (const row of group) {
    const reason = factWithheldReason(row);
    if (reason === null) survivors.push(row);
    else if (reason === 'superseded') withheld.supersededFacts++;
    else {
      withheld.hiddenFacts++;
      if (row.subjectEntityId !== null) addHiddenAttribute(hiddenAttributes, row.subjectEntityId, row.predicate);
    }
  }
  if (survivors.length === 0) {
    run.withheldFacts.add(group[0]!.id);
    run.stateLists.withheldFacts.add(group[0]!.id);
    return null;
  }
  return pickSurvivor(survivors);
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

/** What the facts pass needs of a live fact line besides its bytes. */
interface LiveFact {
  subjectEntityId: string | undefined;
  predicate: string;
  importance: number;
  freshness: string;
  sourceId: string | undefined;
}

const PREDICATE_KEY = ',"predicate":"';
const IMPORTANCE_KEY = ',"importance":';
const SUBJECT_ENTITY_KEY = ',"subject_entity_id":"';
const FRESHNESS_KEY = ',"freshness":"';
const SOURCE_ID_KEY = ',"source_id":"';

/**
 * A live fact line's fields as projectFact writes them, read from its bytes where they can say:
 * a quote inside a string is escaped, so `,"` never starts inside one and each key is found where
 * it is. The predicate follows the subject; subject_entity_id is the field just before the last
 * `,"importance":`, after which every field is a scalar. Otherwise the line is parsed. The bytes
 * are searched as a latin1 string (one byte a character, so positions are byte offsets): a
 * string's search stays in the engine where a Buffer's crosses into C++ at every call.
 */
function liveFactOf(line: Buffer): LiveFact {
  const text = line.toString('latin1');
  const importance = text.lastIndexOf(IMPORTANCE_KEY);
  const predicate = text.indexOf(PREDICATE_KEY);
  const freshness = text.indexOf(FRESHNESS_KEY, importance);
  const subject = subjectEntityIdOfLine(text, line, importance);
  if (importance >= 0 && predicate >= 0 && freshness >= 0 && subject !== null) {
    const fields = {
      subjectEntityId: subject,
      predicate: stringAt(text, line, predicate + PREDICATE_KEY.length),
      importance: Number(text.slice(importance + IMPORTANCE_KEY.length, freshness)),
      freshness: stringAt(text, line, freshness + FRESHNESS_KEY.length),
      sourceId: undefined as string | undefined | null,
    };
    const source = text.indexOf(SOURCE_ID_KEY, freshness);
    if (source >= 0) fields.sourceId = stringAt(text, line, source + SOURCE_ID_KEY.length);
    if (
      fields.predicate !== null &&
      fields.freshness !== null &&
      fields.sourceId !== null &&
      Number.isFinite(fields.importance)
    )
      return fields as LiveFact;
  }
  const record = liveRecord(line);
  return {
    subjectEntityId: record.subject_entity_id,
    predicate: record.predicate,
    // A fact line as projectFact writes it has both.
    importance: record.importance ?? 0,
    freshness: record.freshness ?? '',
    sourceId: record.source_id,
  };
}

/** The string value starting at `start` (`text` is `line` as latin1), or null when it holds an escape. */
function stringAt(text: string, line: Buffer, start: number): string | null {
  const end = text.indexOf('"', start);
  return end < 0 ? null : plainString(text, line, start, end);
}

/**
 * The bytes from `start` to `end` as a string, or null when they hold a quote or an escape: cut
 * from `text` while they are ASCII, decoded from `line` as UTF-8 otherwise.
 */
function plainString(text: string, line: Buffer, start: number, end: number): string | null {
  let ascii = true;
  for (let k = start; k < end; k++) {
    const c = text.charCodeAt(k);
    // No byte of a multi-byte UTF-8 character is a quote or a backslash.
    if (c === 0x22 /* " */ || c === 0x5c /* \ */) return null;
    if (c >= 0x80) ascii = false;
  }
  return ascii ? text.slice(start, end) : line.toString('utf8', start, end);
}

/**
 * The subject_entity_id of a fact line, the field before the one at `importance`: undefined when it
 * has none, null when the bytes do not say.
 */
function subjectEntityIdOfLine(text: string, line: Buffer, importance: number): string | undefined | null {
  if (importance < 0) return null;
  const key = text.lastIndexOf(SUBJECT_ENTITY_KEY, importance);
  if (key < 0) return undefined;
  if (text.charCodeAt(importance - 1) !== 0x22) return null;
  const start = key + SUBJECT_ENTITY_KEY.length;
  return start < importance - 1 ? plainString(text, line, start, importance - 1) : null;
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

/**
 * Writes the relationships whose both ends are exported. With `since`, a relationship unchanged
 * since the live version's compile is that version's line, copied with its citation, while its
 * ends and its source are exported as they were (one that had no line is written again).
 */
function writeRelationships(run: CompileRun): void {
  for (const language of run.languages) {
    const path = `relationships.${language}.jsonl`;
    const writer = new JsonlWriter(run.sink, path, RelationshipRecordSchema, run.changes);
    run.progress.startFile(path, () => writer.count);
    for (const row of uniqueById(run.reader.relationships(language, run.since?.relationships))) {
      run.progress.row();
      if (row.unchanged === true && !relationshipFlipped(run, row) && copyLiveLine(run, writer, row.id)) {
        citeCopied(run, 'relationship', row);
        continue;
      }
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
        run.stateLists.rejectedChunks.add(row.id);
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

/** Whether an end or the source of a relationship is exported otherwise than in the live version. */
function relationshipFlipped(run: CompileRun, row: RelationshipRow): boolean {
  const { flippedEntities } = run.since!;
  return (
    sourceChanged(run, row.sourceId) ||
    flippedEntities.has(row.fromEntityId) ||
    (row.toEntityId !== null && flippedEntities.has(row.toEntityId))
  );
}

/** Writes record `id`'s line of the live version as it is, when it had one; false when it had none. */
function copyLiveLine(run: CompileRun, writer: JsonlWriter<object>, id: string): boolean {
  const live = run.changes.liveLine(writer.path, id);
  if (live === undefined) return false;
  writer.addSame(live, id);
  return true;
}

/**
 * Writes the questions and answers that are exported and not made from a withheld fact. With
 * `since`, one unchanged since the live version's compile is that version's line, copied, while
 * none of its facts was read again (every other fact is exported as it was) and its entities are
 * exported as they were (one that had no line is written again).
 */
function writeQa(run: CompileRun): void {
  for (const language of run.languages) {
    const path = `qa.${language}.jsonl`;
    const writer = new JsonlWriter(run.sink, path, QaRecordSchema, run.changes);
    run.progress.startFile(path, () => writer.count);
    for (const row of uniqueById(run.reader.qa(language, run.since?.qa))) {
      run.progress.row();
      if (row.unchanged === true && !qaFlipped(run, row) && copyLiveLine(run, writer, row.id)) continue;
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

/** Whether a fact of a Q&A was read again, or an entity it names is exported otherwise than in the live version. */
function qaFlipped(run: CompileRun, row: QaRow): boolean {
  const { readFacts, flippedEntities } = run.since!;
  return row.factIds.some((id) => readFacts.has(id)) || row.entityIds.some((id) => flippedEntities.has(id));
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
  const state = compileStateOf(nodeVersion, run.contextKey, run.graph, run.stateLists);
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
