import type {
  ChunkRow,
  ChunkVectorRow,
  EntityRow,
  FactRow,
  GraphReader,
  QaRow,
  RelationshipRow,
  SourceRow,
} from '../ingest/graph/index.js';
import { compareStrings } from './top-k.js';

export interface MemoryGraph {
  entities?: EntityRow[];
  facts?: FactRow[];
  relationships?: RelationshipRow[];
  chunks?: ChunkRow[];
  qa?: QaRow[];
  sources?: SourceRow[];
  /** Stored chunk vectors, each with the model key it was embedded with. */
  chunkVectors?: Array<ChunkVectorRow & { model: string }>;
}

const byId = <T extends { id: string }>(rows: T[]): T[] => [...rows].sort((a, b) => compareStrings(a.id, b.id));

/**
 * A GraphReader over arrays, with the ordering contract of the SQLite reader (by id). For tests
 * and the compile bench; rows keep their internal flags, the compiler applies the export rules.
 */
export function createMemoryGraphReader(graph: MemoryGraph): GraphReader {
  const entities = byId(graph.entities ?? []);
  const facts = byId(graph.facts ?? []);
  const relationships = byId(graph.relationships ?? []);
  const chunks = byId(graph.chunks ?? []);
  const qa = byId(graph.qa ?? []);
  const sources = byId(graph.sources ?? []);
  const vectors = [...(graph.chunkVectors ?? [])].sort((a, b) => compareStrings(a.chunkId, b.chunkId));
  const entityIndex = new Map(entities.map((e) => [e.id, e]));
  const inLanguage = <T extends { language: string }>(rows: T[], language: string) =>
    rows.filter((r) => r.language === language);
  return {
    languages() {
      const all = new Set<string>();
      for (const rows of [entities, facts, relationships, chunks, qa]) for (const r of rows) all.add(r.language);
      return [...all].sort(compareStrings);
    },
    entities: (language) => inLanguage(entities, language),
    facts: (language) => inLanguage(facts, language),
    // No graphState: a compile of a memory graph never reads what changed.
    factsSince: () => {
      throw new Error('a memory graph has no write sequence to read changes since');
    },
    supersededCandidates: (language) => inLanguage(facts, language).filter((f) => f.status !== 'active').length,
    relationships: (language) => inLanguage(relationships, language),
    chunks: (language) => inLanguage(chunks, language),
    qa: (language) => inLanguage(qa, language),
    sources: () => sources,
    entityById: (id) => entityIndex.get(id),
    chunkVectors: (language, model) =>
      vectors
        .filter((v) => v.model === model && chunks.some((c) => c.id === v.chunkId && c.language === language))
        .map(({ chunkId, textHash, vector }) => ({ chunkId, textHash, vector })),
  };
}
