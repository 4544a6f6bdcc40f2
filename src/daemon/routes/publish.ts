import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { authorizeWebsite } from '../../auth/principal.js';
import { sendData } from '../envelope.js';
import type { RoutePluginOptions } from '../route-plugins.js';
import type { PublishTarget } from '../../publish/targets/types.js';

const PublishBodySchema = z.strictObject({
  /** Publish even when the record count falls more than publishMaxDrop; default false. */
  allowDrop: z.boolean().optional(),
  /** Report what would be uploaded; write nothing; default false. */
  dryRun: z.boolean().optional(),
  /** Publish a new version even when its content equals the live version's; default false. */
  force: z.boolean().optional(),
}).optional();

/**
 * POST /v1/websites/:id/publish (editor; synchronous, 200) and DELETE /v1/websites/:id/node
 * (organization_admin; takedown, 200 {tombstoned: true}, repeatable). Both run the same publish
 * module as `nodectl publish`, against the configured target; the publish runs in a worker
 * thread (the route awaits it), so a large compile does not stall other requests.
 */
export const publishRoutes: FastifyPluginAsync<RoutePluginOptions> = async (app, { services }) => {
  let target: Promise<PublishTarget> | undefined;
  const getTarget = () => (target ??= import('../../publish/targets/index.js').then((m) => m.createTargetFromSettings(services.config.settings)));
  app.addHook('onClose', async () => {
    if (target) await (await target).close();
  });

  app.post<{ Params: { id: string } }>('/v1/websites/:id/publish', async (request, reply) => {
    const { website } = authorizeWebsite(services, request, request.params.id, 'editor', 'mutate');
    const body = PublishBodySchema.parse(request.body ?? undefined) ?? {};
    // The compile and the atomic sequence run in a worker thread; the event loop keeps serving.
    const { runPublishInWorker } = await import('../../publish/publish-in-worker.js');
    const result = await runPublishInWorker({
      settings: services.config.settings,
      controlDb: services.controlDb,
      source: { kind: 'website', websiteId: website.id },
      allowDrop: body.allowDrop,
      dryRun: body.dryRun,
      force: body.force,
      now: services.now,
      listenPort: request.socket.localPort,
    });
    services.logger.info({ websiteId: website.id, version: result.versionUlid, uploaded: result.bytesUploaded }, 'node published');
    return sendData(request, reply, {
      versionUlid: result.versionUlid,
      versionLabel: result.versionLabel,
      files: result.files.map((f) => ({ path: f.path, bytes: f.bytes, checksum: f.checksum, state: f.state })),
      cdnPath: result.cdnPath,
      publicUrl: result.publicUrl,
      previousVersion: result.previousVersion,
      alreadyLive: result.alreadyLive,
      dryRun: result.dryRun,
      bytesUploaded: result.bytesUploaded,
      bytesCarried: result.bytesCarried,
    });
  });

  app.delete<{ Params: { id: string } }>('/v1/websites/:id/node', async (request, reply) => {
    const { website } = authorizeWebsite(services, request, request.params.id, 'organization_admin', 'mutate');
    const { takeDownNode } = await import('../../publish/rollback.js');
    await takeDownNode({ target: await getTarget(), controlDb: services.controlDb, websiteId: website.id, domain: website.domain, now: services.now });
    return sendData(request, reply, { tombstoned: true });
  });
};
