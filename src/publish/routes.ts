import { z } from 'zod';
import type { RoutePlugin } from '../app/route-plugin.js';
import { authorizedWebsite } from '../auth/management-scope.js';
import { auditRequest } from '../auth/request-audit.js';
import type { RouteAccess } from '../auth/route-access.js';
import { sendData } from '../http/envelope.js';
import { assertPublishAllowed } from '../plans/publishes.js';
import { countRejections, NO_REJECTIONS } from './rejections.js';
import type { PublishTarget } from './targets/types.js';

const PublishBodySchema = z.strictObject({
  /** Publish even when the record count falls more than publishMaxDrop; default false. */
  allowDrop: z.boolean().optional(),
  /** Report what would be uploaded; write nothing; default false. */
  dryRun: z.boolean().optional(),
  /** Publish a new version even when its content equals the live version's; default false. */
  force: z.boolean().optional(),
}).optional();

const PUBLISH_ACCESS: RouteAccess = { minRole: 'editor', access: 'mutate', resource: { kind: 'website', param: 'id' } };
const TAKEDOWN_ACCESS: RouteAccess = { minRole: 'organization_admin', access: 'mutate', resource: { kind: 'website', param: 'id' } };

/**
 * POST /v1/websites/:id/publish (editor; synchronous, 200) and DELETE /v1/websites/:id/node
 * (organization_admin; takedown, 200 {tombstoned: true}, repeatable). Both run the same publish
 * module as `nodectl publish`, against the configured target; the publish runs in a worker
 * thread (the route awaits it), so a large compile does not stall other requests.
 */
export const publishRoutes: RoutePlugin = async (app, { services }) => {
  let target: Promise<PublishTarget> | undefined;
  const getTarget = () => (target ??= import('./targets/index.js').then((m) => m.createTargetFromSettings(services.config.settings)));
  app.addHook('onClose', async () => {
    if (target) await (await target).close();
  });

  app.post<{ Params: { id: string } }>('/v1/websites/:id/publish', { config: { access: PUBLISH_ACCESS } }, async (request, reply) => {
    const website = authorizedWebsite(request);
    const body = PublishBodySchema.parse(request.body ?? undefined) ?? {};
    // Refused here, before a worker starts, when the day's publishes are used up (runPublish checks again).
    if (!body.dryRun) assertPublishAllowed(services.controlDb, website.id, services.now());
    // The compile and the atomic sequence run in a worker thread; the event loop keeps serving.
    const { runPublishInWorker } = await import('./publish-in-worker.js');
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
    countRejections(services.metrics, result.rejected);
    services.logger.info({ websiteId: website.id, version: result.versionUlid, uploaded: result.bytesUploaded, rejected: result.rejected?.total ?? 0 }, 'node published');
    auditRequest(services, request, { organizationId: website.organizationId, action: 'node.published', target: website.id, details: { version: result.versionUlid, label: result.versionLabel, already_live: result.alreadyLive, dry_run: result.dryRun } });
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
      rejected: result.rejected ?? NO_REJECTIONS,
    });
  });

  app.delete<{ Params: { id: string } }>('/v1/websites/:id/node', { config: { access: TAKEDOWN_ACCESS } }, async (request, reply) => {
    const website = authorizedWebsite(request);
    const { takeDownNode } = await import('./rollback.js');
    await takeDownNode({ target: await getTarget(), controlDb: services.controlDb, websiteId: website.id, domain: website.domain, now: services.now });
    auditRequest(services, request, { organizationId: website.organizationId, action: 'node.taken_down', target: website.id });
    return sendData(request, reply, { tombstoned: true });
  });
};
