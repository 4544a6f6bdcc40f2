import type { FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { RoutePlugin } from '../../platform/app/index.js';
import { authorizedWebsite, actorOf, type RouteAccess } from '../access/index.js';
import { sendData, dataEnvelope } from '../../platform/http/index.js';
import { checkDomain } from './check-domain.js';
import { verificationDeps } from './deps.js';
import { issueChallenge } from './issue-challenge.js';
import { createOwnershipProbes } from './ownership-probes.js';
import {
  ChallengeBodySchema,
  CheckBodySchema,
  DomainVerificationSchema,
  VerificationCheckSchema,
  VerificationParamsSchema,
  WebsiteVerificationSchema,
} from './schemas.js';
import { presentDomainVerification, presentWebsiteVerification } from './view.js';

const READ: RouteAccess = { minRole: 'viewer', access: 'read', resource: { kind: 'website', param: 'id' } };
const EDIT: RouteAccess = { minRole: 'editor', access: 'mutate', resource: { kind: 'website', param: 'id' } };
const TAGS = ['verification'];

/** `user:<id>` or `api_key:<id>`, as verification_events records who acted. */
function actorText(request: FastifyRequest): string {
  const actor = actorOf(request.principal);
  return 'id' in actor ? `${actor.kind}:${actor.id}` : actor.kind;
}

/**
 * GET /v1/websites/:id/verification (viewer), POST .../verification/challenge (editor, 201) and
 * POST .../verification/check (editor): ownership verification of the website's domain and of
 * each alias (docs/verification.md). Requests are validated by the schemas of ./schemas.ts.
 */
export const verificationRoutes: RoutePlugin = async (plainApp, { services }) => {
  const app = plainApp.withTypeProvider<ZodTypeProvider>();
  const deps = verificationDeps(services);
  const probes = createOwnershipProbes(services.config.settings);
  const db = services.controlDb;

  app.get(
    '/v1/websites/:id/verification',
    {
      config: { access: READ },
      schema: {
        summary: "Read the verification of the website's domain and of each alias, with the latest 20 steps",
        tags: TAGS,
        params: VerificationParamsSchema,
        response: {
          200: dataEnvelope(WebsiteVerificationSchema).describe(
            "The own domain's verification, its aliases' and the latest steps",
          ),
        },
      },
    },
    async (request, reply) =>
      sendData(request, reply, presentWebsiteVerification(db, authorizedWebsite(request).id, probes.originOf)),
  );

  app.post(
    '/v1/websites/:id/verification/challenge',
    {
      config: { access: EDIT, errors: ['website.alias_not_found'] },
      schema: {
        summary: 'Open a challenge: what to put where to prove ownership of the domain or an alias',
        tags: TAGS,
        params: VerificationParamsSchema,
        body: ChallengeBodySchema,
        response: {
          201: dataEnvelope(DomainVerificationSchema).describe(
            "The domain's verification with the challenge and its instructions",
          ),
        },
      },
    },
    async (request, reply) => {
      const website = authorizedWebsite(request);
      const record = issueChallenge(deps, {
        websiteId: website.id,
        domain: request.body.domain ?? website.domain,
        method: request.body.method,
        actor: actorText(request),
      });
      return sendData(request, reply, presentDomainVerification(record, probes.originOf), 201);
    },
  );

  app.post(
    '/v1/websites/:id/verification/check',
    {
      config: { access: EDIT, errors: ['website.alias_not_found', 'verification.challenge_required'] },
      schema: {
        summary: "Read the proof now and move the domain's verification with what was found",
        tags: TAGS,
        params: VerificationParamsSchema,
        body: CheckBodySchema,
        response: {
          200: dataEnvelope(VerificationCheckSchema).describe(
            "The domain's verification after the check, and what the check found",
          ),
        },
      },
    },
    async (request, reply) => {
      const website = authorizedWebsite(request);
      const { verification, outcome } = await checkDomain(deps, probes, {
        websiteId: website.id,
        domain: request.body?.domain ?? website.domain,
        actor: actorText(request),
      });
      return sendData(request, reply, {
        ...presentDomainVerification(verification, probes.originOf),
        check: { method: outcome.method, passed: outcome.passed, evidence: outcome.evidence },
      });
    },
  );
};
