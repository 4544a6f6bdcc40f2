import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { RoutePlugin } from '../app/route-plugin.js';
import { authorizedWebsite } from '../auth/management-scope.js';
import { actorOf } from '../auth/request-audit.js';
import type { RouteAccess } from '../auth/route-access.js';
import { sendData } from '../http/envelope.js';
import { parseInput } from '../organizations/parse-input.js';
import { DomainSchema } from '../tenancy/records.js';
import { checkDomain } from './check-domain.js';
import { verificationDeps } from './graph-trust.js';
import { issueChallenge } from './issue-challenge.js';
import { METHOD_NAMES, toChallengeMethod } from './methods.js';
import { createOwnershipProbes } from './probes.js';
import { presentDomainVerification, presentWebsiteVerification } from './view.js';

const ChallengeBodySchema = z.strictObject({
  method: z.enum(METHOD_NAMES, { error: `must be one of ${METHOD_NAMES.join(', ')} (manual is granted by a platform operator: nodectl admin website verify --manual)` }),
  /** An alias of the website; default the website's own domain. */
  domain: DomainSchema.optional(),
});
const CheckBodySchema = z.strictObject({ domain: DomainSchema.optional() }).optional();

const READ: RouteAccess = { minRole: 'viewer', access: 'read', resource: { kind: 'website', param: 'id' } };
const EDIT: RouteAccess = { minRole: 'editor', access: 'mutate', resource: { kind: 'website', param: 'id' } };

/** `user:<id>` or `api_key:<id>`, as verification_events records who acted. */
function actorText(request: FastifyRequest): string {
  const actor = actorOf(request.principal);
  return 'id' in actor ? `${actor.kind}:${actor.id}` : actor.kind;
}

/**
 * GET /v1/websites/:id/verification (viewer), POST .../verification/challenge (editor, 201) and
 * POST .../verification/check (editor): ownership verification of the website's domain and of
 * each alias (docs/verification.md).
 */
export const verificationRoutes: RoutePlugin = async (app, { services }) => {
  const deps = verificationDeps(services);
  const probes = createOwnershipProbes(services.config.settings);
  const db = services.controlDb;

  app.get<{ Params: { id: string } }>('/v1/websites/:id/verification', { config: { access: READ } }, async (request, reply) => {
    return sendData(request, reply, presentWebsiteVerification(db, authorizedWebsite(request).id, probes.originOf));
  });

  app.post<{ Params: { id: string } }>('/v1/websites/:id/verification/challenge', { config: { access: EDIT } }, async (request, reply) => {
    const body = parseInput(ChallengeBodySchema, request.body, 'challenge');
    const website = authorizedWebsite(request);
    const record = issueChallenge(deps, { websiteId: website.id, domain: body.domain ?? website.domain, method: toChallengeMethod(body.method), actor: actorText(request) });
    return sendData(request, reply, presentDomainVerification(record, probes.originOf), 201);
  });

  app.post<{ Params: { id: string } }>('/v1/websites/:id/verification/check', { config: { access: EDIT } }, async (request, reply) => {
    const body = parseInput(CheckBodySchema, request.body ?? undefined, 'check') ?? {};
    const website = authorizedWebsite(request);
    const { verification, outcome } = await checkDomain(deps, probes, { websiteId: website.id, domain: body.domain ?? website.domain, actor: actorText(request) });
    return sendData(request, reply, { ...presentDomainVerification(verification, probes.originOf), check: { method: outcome.method, passed: outcome.passed, evidence: outcome.evidence } });
  });
};
