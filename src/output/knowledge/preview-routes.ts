import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { RoutePlugin } from '../../platform/app/index.js';
import { authorizedWebsite, type RouteAccess } from '../../control/access/index.js';
import { nodeBaseUrl } from '../../platform/config/index.js';
import { sendData, dataEnvelope } from '../../platform/http/index.js';
import { nodeStoreReader, type PublishTarget } from '../publish/index.js';
import { NodePreviewSchema, WebsitePathSchema } from './api-schemas.js';
import { createPreviewService } from './preview-service.js';

const VIEWER_READ: RouteAccess = { minRole: 'viewer', access: 'read', resource: { kind: 'website', param: 'id' } };

/**
 * GET /v1/websites/:id/node/preview (viewer): what a publish would produce now, compiled by the
 * real compiler in a worker thread with nothing written (docs/knowledge.md "Node preview"), each
 * file's state against the live version of the configured publish target. The compile is reused
 * while the graph and the website are unchanged; header X-Nodectl-Preview says `cached` or
 * `computed`. 409 publish.nothing_to_publish before anything is ingested. `node_url` is where the
 * live files are served, as a publish's cdnPath says (the console links the files from it).
 */
export const previewRoutes: RoutePlugin = async (app, { services }) => {
  let target: Promise<PublishTarget> | undefined;
  const getTarget = () =>
    (target ??= import('../publish/index.js').then((m) => m.createTargetFromSettings(services.config.settings)));
  const previews = createPreviewService(services, async () => nodeStoreReader(await getTarget()));
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
        graphOf: 'website',
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
      // Not part of the cached compile: it depends on the settings and the port the request came in on.
      const nodeUrl = `${nodeBaseUrl(services.config.settings, request.socket.localPort)}/${website.domain}`;
      return sendData(request, reply, { ...preview, node_url: nodeUrl });
    },
  );
};
