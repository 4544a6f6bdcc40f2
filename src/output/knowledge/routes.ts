import type { FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { RoutePlugin } from '../../platform/app/index.js';
import { authorizedWebsite, PLATFORM_ROLES, type RouteAccess } from '../../control/access/index.js';
import { AppError } from '../../platform/errors/index.js';
import { sendData, pageOf, parseListQuery, dataEnvelope, listEnvelope } from '../../platform/http/index.js';
import { roleAtLeast, type Role } from '../../control/records/index.js';
import {
  EntityFactsSchema,
  EntityPathSchema,
  FactsQuerySchema,
  RelatedEntitiesSchema,
  RelatedQuerySchema,
  SearchHitSchema,
  SearchQuerySchema,
  WebsitePathSchema,
} from './api-schemas.js';
import { readEntityFacts, readExportedEntity, readRelated } from './entities.js';
import { searchDigest, searchKnowledge, type RankedHit, type SearchPosition } from './search.js';
import { fusedSearch, type SearchMode } from './hybrid-search.js';
import { queryVector } from './query-vectors.js';
import { hasVectors } from './vector-search.js';
import {
  embeddingsSettingsOf,
  embeddingsWebsite,
  EmbeddingProviderError,
  modelKeyOf,
} from '../../ingest/embeddings/index.js';
import { createSearchQueue } from './search-queue.js';
import { existingGraph } from './website-graph.js';

const VIEWER_READ: RouteAccess = { minRole: 'viewer', access: 'read', resource: { kind: 'website', param: 'id' } };

/** Whose places in the search queue a request takes: its API key or user, else its address. */
function callerOf(request: FastifyRequest): string {
  const principal = request.principal;
  if (principal?.kind === 'api_key') return `key:${principal.keyId}`;
  if (principal?.kind === 'user') return `user:${principal.userId}`;
  return `address:${request.ip}`;
}

/** What a search cursor holds: the last hit's sort key and a digest of the query it belongs to. */
const CursorSchema = z.object({ d: z.string(), r: z.number(), i: z.number().int() });

const badCursor = () =>
  new AppError(
    'validation.failed',
    'The cursor belongs to another search: pass next_cursor of the previous page with the same q and kind.',
    { details: { fields: [{ path: 'cursor', message: 'not a cursor of this search' }] } },
  );

function readCursor(after: string | undefined, digest: string): SearchPosition | undefined {
  if (after === undefined) return undefined;
  let parsed;
  try {
    parsed = CursorSchema.safeParse(JSON.parse(after));
  } catch {
    throw badCursor();
  }
  if (!parsed.success || parsed.data.d !== digest) throw badCursor();
  return { rank: parsed.data.r, doc: parsed.data.i };
}

const ENTITY_ID = /^entity_[0-9a-f]{24}$/;

const vectorsUnavailable = () =>
  new AppError(
    'search.vectors_unavailable',
    "mode=vector needs the website's chunks embedded: embeddings are off (embeddingsUrl), its plan lacks cap.embeddings, or the embedding job has not stored a vector yet; use mode=keyword or hybrid.",
  );

const entityNotFound = (id: string) =>
  new AppError(
    'entity.not_found',
    `No entity ${id} in this website's graph (or it is hidden, so no publish exports it); find ids with GET /v1/websites/:id/knowledge/search.`,
  );

/**
 * Knowledge reads over the website's graph, what the next publish would export
 * (docs/contract.md#management-api, docs/knowledge.md): GET .../knowledge/search,
 * .../entities/:eid/facts and .../entities/:eid/related, all viewer reads. A website with
 * nothing ingested has no graph: search answers no hits, entity reads 404.
 */
export const knowledgeRoutes: RoutePlugin = async (plainApp, { services }) => {
  const app = plainApp.withTypeProvider<ZodTypeProvider>();
  const searches = createSearchQueue({ perCaller: services.config.settings.searchQueuePerCaller });

  app.get(
    '/v1/websites/:id/knowledge/search',
    {
      config: {
        access: VIEWER_READ,
        graphOf: 'website',
        errors: ['search.vectors_unavailable', 'search.embeddings_failed'],
      },
      schema: {
        summary:
          "Search the website's knowledge (entities, facts, text chunks) as the next publish would export it, best first",
        tags: ['knowledge'],
        params: WebsitePathSchema,
        querystring: SearchQuerySchema,
        response: {
          200: listEnvelope(SearchHitSchema).describe(
            'One page of hits, best first; next_cursor pages on with the same q and kind',
          ),
        },
      },
    },
    async (request, reply) => {
      const website = authorizedWebsite(request);
      const { q, kind, mode: asked } = request.query;
      const list = parseListQuery(request.query);
      const db = existingGraph(services, website.id);
      const embeddings = embeddingsSettingsOf(services.config.settings);
      const modelKey = embeddings ? modelKeyOf(embeddings) : '';
      const vectorsReady =
        embeddings !== undefined &&
        db !== undefined &&
        embeddingsWebsite(services.controlDb, website.id) !== undefined &&
        hasVectors(db, modelKey);
      if (asked === 'vector' && !vectorsReady) throw vectorsUnavailable();
      // Without vectors hybrid is the fusion of one list: the keyword hits as they are.
      let mode: SearchMode = vectorsReady ? (asked ?? 'hybrid') : 'keyword';
      let vector: Float32Array | undefined;
      if (mode !== 'keyword') {
        try {
          vector = await queryVector(embeddings!, q);
        } catch (error) {
          if (!(error instanceof EmbeddingProviderError)) throw error;
          // Asked for by name, the mode fails; the default falls back to keyword hits.
          if (asked !== undefined)
            throw new AppError(
              'search.embeddings_failed',
              `The embeddings provider could not embed the query (${error.message}); retry, or pass mode=keyword.`,
              { retryAfterSeconds: 5 },
            );
          request.log.warn({ err: error }, 'query not embedded: knowledge search answers keyword hits');
          mode = 'keyword';
        }
      }
      const digest = searchDigest(q, kind, mode);
      const after = readCursor(list.after, digest);
      // A fused mode's cursor holds the offset of the next hit.
      if (mode !== 'keyword' && after && !(Number.isInteger(after.rank) && after.rank >= 0)) throw badCursor();
      const hits = await searches.run(callerOf(request), () => {
        if (!db) return [];
        if (mode !== 'keyword')
          return fusedSearch(db, {
            mode,
            query: q,
            vector: vector!,
            modelKey,
            ...(kind ? { kind } : {}),
            offset: after?.rank ?? 0,
            limit: list.limit + 1,
          });
        return searchKnowledge(db, {
          query: q,
          limit: list.limit + 1,
          ...(kind ? { kind } : {}),
          ...(after ? { after } : {}),
        });
      });
      const keyOf = (hit: RankedHit) => JSON.stringify({ d: digest, r: hit.position.rank, i: hit.position.doc });
      reply.header('nodectl-search-mode', mode);
      return sendData(
        request,
        reply,
        pageOf(hits, list, keyOf, ({ position: _position, ...hit }) => hit),
      );
    },
  );

  app.get(
    '/v1/websites/:id/entities/:eid/facts',
    {
      // auth.forbidden: include=candidates below the editor role.
      config: { access: VIEWER_READ, graphOf: 'website', errors: ['entity.not_found', 'auth.forbidden'] },
      schema: {
        summary:
          'An entity and its exported facts; include=candidates adds the superseded candidates with provenance (editors)',
        tags: ['knowledge'],
        params: EntityPathSchema,
        querystring: FactsQuerySchema,
        response: { 200: dataEnvelope(EntityFactsSchema).describe('The entity and its facts') },
      },
    },
    async (request, reply) => {
      const website = authorizedWebsite(request);
      const { include } = request.query;
      // Superseded candidates show the editorial side of the graph: editors and above (docs/contract.md#roles).
      if (include === 'candidates' && !isEditor(request.tenant?.role))
        throw new AppError(
          'auth.forbidden',
          'include=candidates needs the editor role or higher; leave it out to read the exported facts.',
        );
      const db = existingGraph(services, website.id);
      const entity = db && ENTITY_ID.test(request.params.eid) ? readExportedEntity(db, request.params.eid) : undefined;
      if (!db || !entity) throw entityNotFound(request.params.eid);
      return sendData(request, reply, {
        entity,
        facts: readEntityFacts(db, entity.id, { candidates: include === 'candidates' }),
      });
    },
  );

  app.get(
    '/v1/websites/:id/entities/:eid/related',
    {
      config: { access: VIEWER_READ, graphOf: 'website', errors: ['entity.not_found'] },
      schema: {
        summary:
          'Entities related to an entity through exported relationships, one or two hops away, each with its path',
        tags: ['knowledge'],
        params: EntityPathSchema,
        querystring: RelatedQuerySchema,
        response: { 200: dataEnvelope(RelatedEntitiesSchema).describe('The entity and its neighbours') },
      },
    },
    async (request, reply) => {
      const website = authorizedWebsite(request);
      const { depth, limit } = request.query;
      const db = existingGraph(services, website.id);
      const entity = db && ENTITY_ID.test(request.params.eid) ? readExportedEntity(db, request.params.eid) : undefined;
      if (!db || !entity) throw entityNotFound(request.params.eid);
      return sendData(request, reply, { entity, ...readRelated(db, entity.id, depth as 1 | 2, limit) });
    },
  );
};

function isEditor(role: string | undefined): boolean {
  if (role === undefined) return false;
  return (PLATFORM_ROLES as readonly string[]).includes(role) || roleAtLeast(role as Role, 'editor');
}
