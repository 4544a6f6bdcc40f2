import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { RoutePlugin } from '../../platform/app/route-plugin.js';
import { authorizedWebsite } from '../../control/access/management-scope.js';
import type { RouteAccess } from '../../control/access/route-access.js';
import { sendData } from '../../platform/http/envelope.js';
import { dataEnvelope } from '../../platform/http/route-docs.js';
import type { PublishTarget } from '../publish/targets/types.js';
import { NodePreviewSchema, WebsitePathSchema } from './api-schemas.js';
import { createPreviewService } from './preview-service.js';

const VIEWER_READ: RouteAccess = { minRole: 'viewer', access: 'read', resource: { kind: 'website', param: 'id' } };

/**
 * GET /v1/websites/:id/node/preview (viewer): what a publish would produce now, compiled by the
 * real compiler in a worker thread with nothing written (docs/knowledge.md "Node preview"), each
 * file's state against the live version of the configured publish target. The compile is reused
 * while the graph and the website are unchanged; header X-Nodectl-Preview says `cached` or
 * `computed`. 409 publish.nothing_to_publish before anything is ingested.
 */
export const previewRoutes: RoutePlugin = async (app, { services }) => {
  let target: Promise<PublishTarget> | undefined;
  const getTarget = () =>
    (target ??= import('../publish/targets/index.js').then((m) =>
      m.createTargetFromSettings(services.config.settings),
    ));
  const previews = createPreviewService(services, getTarget);
  app.addHook('onClose', async () => {
    await previews.close();
    if (target) await (await target).close();
  });

  app.withTypeProvider<ZodTypeProvider>().get(
    '/v1/websites/:id/node/preview',
    {
      // The compile refuses what a publish would (node.uuid_leak, publish.validation_failed).
      config: {
        access: VIEWER_READ,
        errors: ['publish.nothing_to_publish', 'publish.validation_failed', 'node.uuid_leak'],
      },
      schema: {
        summary: 'What a publish would produce now, each file against the live version; nothing is written',
        description:
          'The compile is reused while the graph and the website are unchanged: header X-Nodectl-Preview says cached or computed.',
        tags: ['knowledge'],
        params: WebsitePathSchema,
        response: { 200: dataEnvelope(NodePreviewSchema).describe('The preview') },
      },
    },
    async (request, reply) => {
      const website = authorizedWebsite(request);
      const { preview, cached } = await previews.preview(website.id);
      reply.header('X-Nodectl-Preview', cached ? 'cached' : 'computed');
      return sendData(request, reply, preview);
    },
  );
};
