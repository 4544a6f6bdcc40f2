import { z } from 'zod';
import type { RoutePlugin } from '../app/route-plugin.js';
import { authorizedWebsite } from '../auth/management-scope.js';
import { PLATFORM_ROLES } from '../auth/principal.js';
import type { RouteAccess } from '../auth/route-access.js';
import { AppError, fieldProblemsFromZod } from '../errors/app-error.js';
import { sendData } from '../http/envelope.js';
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX, pageOf, parseListQuery } from '../http/list-query.js';
import { roleAtLeast, type Role } from '../tenancy/records.js';
import { readEntityFacts, readExportedEntity, readRelated } from './entities.js';
import { SEARCH_KINDS, searchDigest, searchKnowledge, type RankedHit, type SearchPosition } from './search.js';
import { existingGraph } from './website-graph.js';

const VIEWER_READ: RouteAccess = { minRole: 'viewer', access: 'read', resource: { kind: 'website', param: 'id' } };

/** Longest query accepted, in characters. */
const MAX_QUERY_CHARS = 500;

const SearchQuerySchema = z.object({
  q: z.string({ error: 'is required: the text to search for' }).trim().min(1, 'must not be empty').max(MAX_QUERY_CHARS, `must be at most ${MAX_QUERY_CHARS} characters`),
  kind: z.enum(SEARCH_KINDS, { error: `must be one of ${SEARCH_KINDS.join(', ')}` }).optional(),
});

/** What a search cursor holds: the last hit's sort key and a digest of the query it belongs to. */
const CursorSchema = z.object({ d: z.string(), r: z.number(), i: z.number().int() });

const FactsQuerySchema = z.object({ include: z.literal('candidates', { error: 'must be candidates' }).optional() });

const RelatedQuerySchema = z.object({
  depth: z.enum(['1', '2'], { error: 'must be 1 or 2' }).default('1').transform(Number),
  limit: z.coerce.number({ error: `must be a whole number from 1 to ${LIST_LIMIT_MAX}` }).int(`must be a whole number from 1 to ${LIST_LIMIT_MAX}`).min(1, 'must be at least 1').max(LIST_LIMIT_MAX, `must be at most ${LIST_LIMIT_MAX}`).default(LIST_LIMIT_DEFAULT),
});

function parseQuery<S extends z.ZodType>(schema: S, query: unknown): z.output<S> {
  const parsed = schema.safeParse(query ?? {});
  if (!parsed.success) throw new AppError('validation.failed', 'The query is not valid; see details.fields.', { details: { fields: fieldProblemsFromZod(parsed.error.issues) } });
  return parsed.data;
}

const badCursor = () => new AppError('validation.failed', 'The cursor belongs to another search: pass next_cursor of the previous page with the same q and kind.', { details: { fields: [{ path: 'cursor', message: 'not a cursor of this search' }] } });

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

const entityNotFound = (id: string) => new AppError('entity.not_found', `No entity ${id} in this website's graph (or it is hidden, so no publish exports it); find ids with GET /v1/websites/:id/knowledge/search.`);

/**
 * Knowledge reads over the website's graph, what the next publish would export
 * (docs/contract.md#management-api, docs/knowledge.md): GET .../knowledge/search,
 * .../entities/:eid/facts and .../entities/:eid/related, all viewer reads. A website with
 * nothing ingested has no graph: search answers no hits, entity reads 404.
 */
export const knowledgeRoutes: RoutePlugin = async (app, { services }) => {
  app.get<{ Params: { id: string } }>('/v1/websites/:id/knowledge/search', { config: { access: VIEWER_READ } }, async (request, reply) => {
    const website = authorizedWebsite(request);
    const { q, kind } = parseQuery(SearchQuerySchema, request.query);
    const list = parseListQuery(request.query);
    const digest = searchDigest(q, kind);
    const after = readCursor(list.after, digest);
    const db = existingGraph(services, website.id);
    const hits = db ? searchKnowledge(db, { query: q, limit: list.limit + 1, ...(kind ? { kind } : {}), ...(after ? { after } : {}) }) : [];
    const keyOf = (hit: RankedHit) => JSON.stringify({ d: digest, r: hit.position.rank, i: hit.position.doc });
    return sendData(request, reply, pageOf(hits, list, keyOf, ({ position: _position, ...hit }) => hit));
  });

  app.get<{ Params: { id: string; eid: string } }>('/v1/websites/:id/entities/:eid/facts', { config: { access: VIEWER_READ } }, async (request, reply) => {
    const website = authorizedWebsite(request);
    const { include } = parseQuery(FactsQuerySchema, request.query);
    // Superseded candidates show the editorial side of the graph: editors and above (docs/contract.md#roles).
    if (include === 'candidates' && !isEditor(request.tenant?.role)) throw new AppError('auth.forbidden', 'include=candidates needs the editor role or higher; leave it out to read the exported facts.');
    const db = existingGraph(services, website.id);
    const entity = db && ENTITY_ID.test(request.params.eid) ? readExportedEntity(db, request.params.eid) : undefined;
    if (!db || !entity) throw entityNotFound(request.params.eid);
    return sendData(request, reply, { entity, facts: readEntityFacts(db, entity.id, { candidates: include === 'candidates' }) });
  });

  app.get<{ Params: { id: string; eid: string } }>('/v1/websites/:id/entities/:eid/related', { config: { access: VIEWER_READ } }, async (request, reply) => {
    const website = authorizedWebsite(request);
    const { depth, limit } = parseQuery(RelatedQuerySchema, request.query);
    const db = existingGraph(services, website.id);
    const entity = db && ENTITY_ID.test(request.params.eid) ? readExportedEntity(db, request.params.eid) : undefined;
    if (!db || !entity) throw entityNotFound(request.params.eid);
    return sendData(request, reply, { entity, ...readRelated(db, entity.id, depth as 1 | 2, limit) });
  });
};

function isEditor(role: string | undefined): boolean {
  if (role === undefined) return false;
  return (PLATFORM_ROLES as readonly string[]).includes(role) || roleAtLeast(role as Role, 'editor');
}
