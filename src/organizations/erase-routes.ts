import { z } from 'zod';
import type { RoutePlugin } from '../app/route-plugin.js';
import { actorOf } from '../auth/request-audit.js';
import { sendData } from '../http/envelope.js';
import { getOrganization } from '../tenancy/organizations.js';
import { onOrganization } from './access.js';
import { requestErasure } from './erase.js';
import { parseInput } from './parse-input.js';
import { authorizedOrganization } from './request-caller.js';

const EraseBodySchema = z.strictObject({ confirm: z.string({ error: "must be the organization's slug or name" }).min(1, "must be the organization's slug or name").max(400) });

/**
 * POST /v1/organizations/:id/erase {confirm} (organization_owner, users only): GDPR Art. 17.
 * 202 {job_id}; the org.erase job removes everything of the organization (docs/organizations.md "Erase").
 */
export const eraseRoutes: RoutePlugin = async (app, { services }) => {
  app.post<{ Params: { id: string } }>('/v1/organizations/:id/erase', { config: { access: onOrganization('organization_owner', 'mutate', 'users') } }, async (request, reply) => {
    const { confirm } = parseInput(EraseBodySchema, request.body, 'erase request');
    const tenant = authorizedOrganization(request);
    const organization = getOrganization(services.controlDb, tenant.organizationId)!;
    const job = requestErasure(services, { organization, confirm, actor: actorOf(request.principal), requestId: request.id });
    services.logger.info({ requestId: request.id, jobId: job.id }, 'organization erasure requested');
    return sendData(request, reply, { job_id: job.id }, 202);
  });
};
