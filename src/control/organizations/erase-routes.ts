import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { RoutePlugin } from '../../platform/app/route-plugin.js';
import { actorOf } from '../access/request-audit.js';
import { sendData } from '../../platform/http/envelope.js';
import { dataEnvelope } from '../../platform/http/route-docs.js';
import { getOrganization } from '../records/organizations.js';
import { onOrganization } from './access.js';
import { requestErasure } from './erase.js';
import { authorizedOrganization } from './request-caller.js';
import { EraseOrganizationBodySchema, ErasureJobSchema, OrganizationParamsSchema } from './schemas.js';

/**
 * POST /v1/organizations/:id/erase {confirm} (organization_owner, users only): GDPR Art. 17.
 * 202 {job_id}; the org.erase job removes everything of the organization (docs/organizations.md "Erase").
 */
export const eraseRoutes: RoutePlugin = async (plainApp, { services }) => {
  const app = plainApp.withTypeProvider<ZodTypeProvider>();

  app.post(
    '/v1/organizations/:id/erase',
    {
      // 422 validation.failed also when confirm names neither the slug nor the name (checked against the organization).
      config: {
        access: onOrganization('organization_owner', 'mutate', 'users'),
        errors: ['privacy.erasure_forbidden', 'privacy.erasure_in_progress', 'validation.failed'],
      },
      schema: {
        summary:
          'Erase the organization and everything of it, websites and published files included (GDPR Art. 17); runs as a job',
        tags: ['organizations'],
        params: OrganizationParamsSchema,
        body: EraseOrganizationBodySchema,
        response: { 202: dataEnvelope(ErasureJobSchema) },
      },
    },
    async (request, reply) => {
      const { confirm } = request.body;
      const tenant = authorizedOrganization(request);
      const organization = getOrganization(services.controlDb, tenant.organizationId)!;
      const job = requestErasure(services, {
        organization,
        confirm,
        actor: actorOf(request.principal),
        requestId: request.id,
      });
      services.logger.info({ requestId: request.id, jobId: job.id }, 'organization erasure requested');
      return sendData(request, reply, { job_id: job.id }, 202);
    },
  );
};
