import { z } from 'zod';
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX, ListQuerySchema } from '../../platform/http/index.js';
import { SEARCH_KINDS } from './search.js';
import { SEARCH_MODES } from './hybrid-search.js';

/**
 * The knowledge routes' paths, queries and answers (docs/contract.md#management-api,
 * docs/knowledge.md): the same schemas validate the requests and describe the routes in the
 * OpenAPI document. Answers as entities.ts, search.ts and preview.ts build them.
 */

/** Longest search query accepted, in characters. */
export const MAX_QUERY_CHARS = 500;

export const WebsitePathSchema = z.object({ id: z.string().describe('The website id (web_...)') });

export const EntityPathSchema = WebsitePathSchema.extend({
  eid: z.string().describe('The stable entity id (entity_ followed by 24 hex digits), as search answers it'),
});

export const SearchQuerySchema = ListQuerySchema.extend({
  q: z
    .string({ error: 'is required: the text to search for' })
    .trim()
    .min(1, 'must not be empty')
    .max(MAX_QUERY_CHARS, `must be at most ${MAX_QUERY_CHARS} characters`)
    .describe(
      'The words to find (all must match; "quoted phrases" match as a phrase; the last word of 3 or more characters also matches as a prefix, unless it is common as a whole word); no query operators',
    ),
  kind: z
    .enum(SEARCH_KINDS, { error: `must be one of ${SEARCH_KINDS.join(', ')}` })
    .optional()
    .describe('Only hits of this kind'),
  mode: z
    .enum(SEARCH_MODES, { error: `must be one of ${SEARCH_MODES.join(', ')}` })
    .optional()
    .describe(
      'keyword: FTS5 with BM25; vector: chunks nearest in meaning (embeddings); hybrid: reciprocal rank fusion of both. Default hybrid when the website has vectors, else keyword',
    ),
});

export const FactsQuerySchema = z.object({
  include: z
    .literal('candidates', { error: 'must be candidates' })
    .optional()
    .describe("candidates: also list each fact's superseded candidates with their provenance (editor role or higher)"),
});

export const RelatedQuerySchema = z.object({
  depth: z
    .enum(['1', '2'], { error: 'must be 1 or 2' })
    .default('1')
    .transform(Number)
    .describe('1: direct neighbours; 2: their neighbours too'),
  limit: z.coerce
    .number({ error: `must be a whole number from 1 to ${LIST_LIMIT_MAX}` })
    .int(`must be a whole number from 1 to ${LIST_LIMIT_MAX}`)
    .min(1, 'must be at least 1')
    .max(LIST_LIMIT_MAX, `must be at most ${LIST_LIMIT_MAX}`)
    .default(LIST_LIMIT_DEFAULT)
    .describe('At most this many related entities'),
});

/** search.ts SearchHit. */
export const SearchHitSchema = z.object({
  kind: z.enum(SEARCH_KINDS),
  id: z.string().describe("The record's stable id (entity_*, fact_*, chunk_*)"),
  score: z
    .number()
    .describe(
      'Relevance, higher is better, 6 significant digits. keyword: BM25 over the uncommon words (in at most 10,000 documents), 0 when every word is common and hits come unranked, newest first; vector: cosine similarity; hybrid: the reciprocal rank fusion sum',
    ),
  language: z.string(),
  title: z.string().describe('The entity name, "subject: predicate" of a fact, or the first words of a chunk'),
  snippet: z
    .string()
    .describe('The best-matching text around the matched terms, HTML-escaped, each matched term in <mark>...</mark>'),
  entity_id: z.string().optional().describe("A fact's subject entity, when it is exported"),
  source_url: z.string().optional(),
});

/** entities.ts EntityView. */
export const EntitySchema = z.object({
  id: z.string().describe('The stable entity id'),
  type: z.string(),
  name: z.string(),
  language: z.string(),
  importance: z.number(),
  source_url: z.string().optional(),
});

/** entities.ts CandidateView. */
export const FactCandidateSchema = z.object({
  value: z.unknown(),
  display: z.string().optional(),
  language: z.string(),
  confidence: z.number(),
  provenance_method: z.string().describe('How the value was extracted'),
  source_id: z.string().optional(),
  source_url: z.string().optional(),
  last_seen_at: z.string(),
  status: z.enum(['superseded', 'merged']),
});

/** entities.ts FactView. */
export const FactSchema = z.object({
  id: z.string().describe('The stable fact id'),
  subject: z.string(),
  predicate: z.string(),
  value: z.unknown().describe('The value as exported (text, number, object)'),
  display: z.string().optional(),
  unit: z.string().optional(),
  currency: z.string().optional(),
  language: z.string(),
  confidence: z.number(),
  provenance_method: z.string(),
  importance: z.number(),
  freshness: z.string(),
  valid_from: z.string().optional(),
  valid_until: z.string().optional(),
  source_id: z.string().optional(),
  source_url: z.string().optional(),
  candidates: z
    .array(FactCandidateSchema)
    .optional()
    .describe('With include=candidates: the other candidates of the fact, in survivor order'),
});

/** GET .../entities/:eid/facts. */
export const EntityFactsSchema = z.object({
  entity: EntitySchema,
  facts: z
    .array(FactSchema)
    .describe("The exported facts (each fact's survivor, hidden ones left out), most important first"),
});

/** GET .../entities/:eid/related (entities.ts readRelated). */
export const RelatedEntitiesSchema = z.object({
  entity: EntitySchema,
  related: z
    .array(
      z.object({
        entity: EntitySchema,
        via: z
          .array(
            z.object({
              rel_id: z.string().describe('The relationship id'),
              type: z.string(),
              direction: z.enum(['out', 'in']).describe('out: from the asked side to the neighbour'),
            }),
          )
          .describe('The path from the asked entity: one hop at depth 1, two at depth 2'),
      }),
    )
    .describe('Each neighbour once, by its shortest path; every depth-1 neighbour before any depth-2 one'),
  truncated: z.boolean().describe('More related entities exist than limit'),
});

const PreviewRecordSchema = {
  id: z.string(),
  importance: z.number(),
  language: z.string(),
  source_url: z.string().optional(),
};

/** GET .../node/preview (preview.ts NodePreview). */
export const NodePreviewSchema = z.object({
  files: z
    .array(
      z.object({
        path: z.string(),
        bytes: z.number().int(),
        records: z.number().int().optional(),
        state: z.enum(['new', 'changed', 'unchanged']).describe('Against the live version'),
      }),
    )
    .describe('Every file a publish would write'),
  removed_files: z.array(z.string()).describe('Files the live version has that a publish would drop'),
  same_as_live: z
    .boolean()
    .describe('A publish would find the live version says the same (it publishes nothing without force)'),
  llms_txt: z.string().describe('The llms.txt a publish would write'),
  top_entities: z
    .array(z.object({ ...PreviewRecordSchema, name: z.string() }))
    .describe('The first entities of the priority feed'),
  top_facts: z
    .array(z.object({ ...PreviewRecordSchema, label: z.string() }))
    .describe('The first facts of the priority feed'),
  counts: z.object({
    entities: z.number().int(),
    facts: z.number().int(),
    relationships: z.number().int(),
    chunks: z.number().int(),
    qa: z.number().int(),
    sources: z.number().int(),
    withheld: z
      .object({
        hiddenEntities: z.number().int(),
        hiddenFacts: z.number().int(),
        supersededFacts: z.number().int(),
        unresolvedRelationships: z.number().int(),
        staleQa: z.number().int(),
        orphanedFacts: z.number().int(),
      })
      .describe('Records the export rules leave out'),
  }),
  live_version: z
    .object({ node_version: z.string(), node_version_label: z.string().nullable(), generated_at: z.string() })
    .nullable()
    .describe('The version live on the publish target; null before the first publish'),
  node_url: z
    .string()
    .describe(
      '{node_base_url}/{domain}: where the public files of the live version are served (append a file path, e.g. /manifest.json)',
    ),
});
