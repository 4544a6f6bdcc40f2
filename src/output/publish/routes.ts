import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { RoutePlugin } from '../../platform/app/index.js';
import { authorizedWebsite, auditRequest, type RouteAccess } from '../../control/access/index.js';
import {
  sendData,
  sendEventStream,
  pageOf,
  parseListQuery,
  dataEnvelope,
  listEnvelope,
  wantsEventStream,
} from '../../platform/http/index.js';
import { assertPublishAllowed } from '../../control/plans/index.js';
import { listWebsiteVersions, presentPublishResult, presentRollbackResult } from './present.js';
import type { PublishProgressEvent } from './progress.js';
import { countRejections } from './publish-rejections.js';
import {
  publishEventStreamSchema,
  PublishedVersionSchema,
  PublishRequestSchema,
  PublishResultSchema,
  RollbackRequestSchema,
  RollbackResultSchema,
  TakedownResultSchema,
  VersionsQuerySchema,
  WebsiteParamsSchema,
} from './schemas.js';
import type { PublishResult } from './publish-node.js';
import type { PublishTarget } from './targets/types.js';

const EDITOR_MUTATE: RouteAccess = { minRole: 'editor', access: 'mutate', resource: { kind: 'website', param: 'id' } };
const ADMIN_MUTATE: RouteAccess = {
  minRole: 'organization_admin',
  access: 'mutate',
  resource: { kind: 'website', param: 'id' },
};
const VIEWER_READ: RouteAccess = { minRole: 'viewer', access: 'read', resource: { kind: 'website', param: 'id' } };

/**
 * The publish routes, over the same publish module as `nodectl publish`, `versions`, `rollback`
 * (src/output/publish), against the configured target:
 * - POST /v1/websites/:id/publish (editor; synchronous, 200): the publish runs in a worker thread
 *   (the route awaits it), so a large compile does not stall other requests; with Accept:
 *   text/event-stream the same answer comes as the last of a stream of progress events;
 * - GET /v1/websites/:id/versions (viewer): the stored versions, newest first, live and purged flags;
 * - POST /v1/websites/:id/rollback (editor): latest/ flips back to a stored version, under the
 *   site's publish lock, audited like a publish;
 * - DELETE /v1/websites/:id/node (organization_admin; takedown, 200 {tombstoned: true}, repeatable).
 */
export const publishRoutes: RoutePlugin = async (plain, { services }) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  let target: Promise<PublishTarget> | undefined;
  const getTarget = () =>
    (target ??= import('./targets/index.js').then((m) => m.createTargetFromSettings(services.config.settings)));
  app.addHook('onClose', async () => {
    if (target) await (await target).close();
  });

  app.post(
    '/v1/websites/:id/publish',
    {
      config: {
        access: EDITOR_MUTATE,
        graphOf: 'website',
        errors: [
          'publish.nothing_to_publish',
          'publish.conflict',
          'publish.atomic_conflict',
          'publish.drop_gate',
          'publish.validation_failed',
          'node.uuid_leak',
          'entitlement.limit_reached',
        ],
      },
      schema: {
        summary: "Compile the website's graph and publish it as a new version",
        description:
          'Synchronous: answers once latest/ serves the new version (or nothing changed, or a dry run). One publish per website at a time (409 publish.conflict, retryable). With `Accept: text/event-stream` the answer is streamed as Server-Sent Events: `progress` events ({stage, done, total, ...}) while the daemon compiles, checks and uploads, then one `result` event whose data is the JSON answer, or one `error` event with the error envelope and the status it would have had (meta.status). A refusal before the work starts (access, validation, quota, a publish already running, nothing to publish) is still a plain error answer with its status.',
        tags: ['publish'],
        params: WebsiteParamsSchema,
        body: PublishRequestSchema,
        response: {
          200: {
            description: 'The published version (or the live one, or a dry run), as JSON or as a stream of events',
            content: {
              'application/json': { schema: dataEnvelope(PublishResultSchema) },
              'text/event-stream': { schema: publishEventStreamSchema(dataEnvelope(PublishResultSchema)) },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const website = authorizedWebsite(request);
      const body = request.body ?? {};
      // Refused here, before a worker starts, when the day's publishes are used up (runPublish checks again).
      if (!body.dryRun) assertPublishAllowed(services.controlDb, website.id, services.now());
      // The compile and the atomic sequence run in a worker thread; the event loop keeps serving.
      const { runPublishInWorker } = await import('./publish-in-worker.js');
      const present = (result: PublishResult) => {
        countRejections(services.metrics, result.rejected);
        services.logger.info(
          {
            websiteId: website.id,
            version: result.versionUlid,
            uploaded: result.bytesUploaded,
            rejected: result.rejected?.total ?? 0,
          },
          'node published',
        );
        auditRequest(services, request, {
          organizationId: website.organizationId,
          action: 'node.published',
          target: website.id,
          details: {
            version: result.versionUlid,
            label: result.versionLabel,
            already_live: result.alreadyLive,
            dry_run: result.dryRun,
          },
        });
        return presentPublishResult(result);
      };
      const publish = async (onProgress?: (event: PublishProgressEvent) => void) =>
        present(
          await runPublishInWorker({
            settings: services.config.settings,
            controlDb: services.controlDb,
            source: { kind: 'website', websiteId: website.id },
            allowDrop: body.allowDrop,
            dryRun: body.dryRun,
            force: body.force,
            now: services.now,
            listenPort: request.socket.localPort,
            ...(onProgress ? { onProgress } : {}),
          }),
        );
      if (wantsEventStream(request.headers.accept)) return sendEventStream(request, reply, publish);
      return sendData(request, reply, await publish());
    },
  );

  app.get(
    '/v1/websites/:id/versions',
    {
      config: { access: VIEWER_READ },
      schema: {
        summary: 'List the published versions of the website, newest first',
        description:
          'Every complete version the publish target holds, with which one is live and which a gdpr_erasure purged (same data as `nodectl versions`).',
        tags: ['publish'],
        params: WebsiteParamsSchema,
        querystring: VersionsQuerySchema,
        response: { 200: listEnvelope(PublishedVersionSchema) },
      },
    },
    async (request, reply) => {
      const website = authorizedWebsite(request);
      const page = parseListQuery(request.query);
      const versions = await listWebsiteVersions(await getTarget(), website.id);
      // Newest first: the next page holds the versions older than the cursor's.
      const rest = page.after === undefined ? versions : versions.filter((v) => v.node_version < page.after!);
      return sendData(
        request,
        reply,
        pageOf(rest.slice(0, page.limit + 1), page, (v) => v.node_version),
      );
    },
  );

  app.post(
    '/v1/websites/:id/rollback',
    {
      config: {
        access: EDITOR_MUTATE,
        errors: ['version.not_found', 'publish.version_purged', 'publish.conflict', 'publish.atomic_conflict'],
      },
      schema: {
        summary: 'Serve an earlier published version again',
        description:
          'The same atomic flip as a publish (verify, latest, flip), nothing uploaded; the same as `nodectl rollback`.',
        tags: ['publish'],
        params: WebsiteParamsSchema,
        body: RollbackRequestSchema,
        response: { 200: dataEnvelope(RollbackResultSchema) },
      },
    },
    async (request, reply) => {
      const website = authorizedWebsite(request);
      const { rollbackNode } = await import('./rollback.js');
      const result = await rollbackNode({
        target: await getTarget(),
        controlDb: services.controlDb,
        websiteId: website.id,
        to: request.body.version,
        now: services.now,
      });
      services.logger.info(
        { websiteId: website.id, version: result.versionUlid, previous: result.previousVersion },
        'node rolled back',
      );
      auditRequest(services, request, {
        organizationId: website.organizationId,
        action: 'node.rolled_back',
        target: website.id,
        details: { version: result.versionUlid, label: result.versionLabel, previous_version: result.previousVersion },
      });
      return sendData(request, reply, presentRollbackResult(result));
    },
  );

  app.delete(
    '/v1/websites/:id/node',
    {
      config: { access: ADMIN_MUTATE, errors: ['publish.conflict'] },
      schema: {
        summary: "Take the website's node down",
        description:
          'Its public alias answers 410 node.gone; the versions stay in the store, so a publish or rollback brings it back. Repeatable.',
        tags: ['publish'],
        params: WebsiteParamsSchema,
        response: { 200: dataEnvelope(TakedownResultSchema) },
      },
    },
    async (request, reply) => {
      const website = authorizedWebsite(request);
      const { takeDownNode } = await import('./rollback.js');
      await takeDownNode({
        target: await getTarget(),
        controlDb: services.controlDb,
        websiteId: website.id,
        domain: website.domain,
        now: services.now,
      });
      auditRequest(services, request, {
        organizationId: website.organizationId,
        action: 'node.taken_down',
        target: website.id,
      });
      return sendData(request, reply, { tombstoned: true as const });
    },
  );
};
