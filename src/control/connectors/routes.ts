import type { FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { RoutePlugin } from '../../platform/app/route-plugin.js';
import { authorizedWebsite } from '../access/management-scope.js';
import { auditRequest } from '../access/request-audit.js';
import type { RouteAccess } from '../access/route-access.js';
import { AppError } from '../../platform/errors/app-error.js';
import { sendData } from '../../platform/http/envelope.js';
import { ListQuerySchema, pageOf, parseListQuery } from '../../platform/http/list-query.js';
import { dataEnvelope, listEnvelope, NoContent } from '../../platform/http/route-docs.js';
import { readMasterKey } from '../../platform/storage/data-dir.js';
import { loadWebsiteInfo } from '../records/load-website.js';
import { countsAsVerified } from '../records/website-info.js';
import { WebsiteIdParamsSchema } from '../websites/schemas.js';
import {
  createConnector,
  deleteConnector,
  getConnector,
  listConnectors,
  resumeConnector,
  rotateConnector,
  suspendConnector,
  type ConnectorRecord,
} from './connectors.js';
import {
  ConnectorIdParamsSchema,
  ConnectorSchema,
  ConnectorWithTokenSchema,
  CreateConnectorBodySchema,
  NoBodySchema,
} from './schemas.js';

const ON_WEBSITE_READ: RouteAccess = { minRole: 'viewer', access: 'read', resource: { kind: 'website', param: 'id' } };
const ON_WEBSITE_ADMIN: RouteAccess = {
  minRole: 'organization_admin',
  access: 'mutate',
  resource: { kind: 'website', param: 'id' },
};
const ON_CONNECTOR_ADMIN: RouteAccess = {
  minRole: 'organization_admin',
  access: 'mutate',
  resource: { kind: 'connector', param: 'cid' },
};
const TAGS = ['connectors'];
const ConnectorAnswer = dataEnvelope(ConnectorSchema).describe('The connector');

/**
 * 409 website.not_verified unless the website counts as verified (verified or in grace: the
 * check MCP makes too) or the operator lets unverified websites have connectors
 * (allowUnverifiedConnectors). docs/contract.md#connector-lifecycle: a website should be
 * verified before a connector token is issued.
 */
function assertMayIssueToken(verified: boolean, allowUnverified: boolean, websiteId: string): void {
  if (verified || allowUnverified) return;
  throw new AppError(
    'website.not_verified',
    `Website ${websiteId} is not verified, so no connector token is issued: verify ownership first (POST /v1/websites/${websiteId}/verification/challenge, then .../check).`,
  );
}

/**
 * Connectors over HTTP (docs/websites.md "Connectors"), the same functions as `nodectl admin
 * connector`: create (token shown once; the website must be verified), list (no secrets),
 * rotate (a new token shown once), suspend, resume and delete. Every route is organization_admin
 * but the list (viewer). Requests are validated by the schemas of ./schemas.ts.
 */
export const connectorRoutes: RoutePlugin = async (plainApp, { services }) => {
  const app = plainApp.withTypeProvider<ZodTypeProvider>();
  const db = services.controlDb;
  const masterKey = readMasterKey(services.layout);
  const audit = (request: FastifyRequest, connector: ConnectorRecord, action: string) =>
    auditRequest(services, request, {
      organizationId: request.tenant!.organizationId,
      action,
      target: connector.id,
      details: { website_id: connector.scope.websiteId, token_version: connector.tokenVersion },
    });

  app.post(
    '/v1/websites/:id/connectors',
    {
      config: { access: ON_WEBSITE_ADMIN, errors: ['website.not_verified'] },
      schema: {
        summary: 'Create a connector for a verified website; its token is shown this once',
        tags: TAGS,
        params: WebsiteIdParamsSchema,
        body: CreateConnectorBodySchema,
        response: {
          201: dataEnvelope(ConnectorWithTokenSchema).describe('The connector and its token, shown this once'),
        },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const website = authorizedWebsite(request);
      const verified = countsAsVerified(loadWebsiteInfo(db, website.id)?.verification.state ?? 'pending');
      assertMayIssueToken(verified, services.config.settings.allowUnverifiedConnectors, website.id);
      const created = db
        .transaction(() => {
          const connector = createConnector(
            db,
            masterKey,
            {
              websiteId: website.id,
              name: body.name,
              connectorType: body.connectorType,
              sourceTypes: body.sourceTypes,
            },
            services.now(),
          );
          audit(request, connector, 'connector.created');
          return connector;
        })
        .immediate();
      return sendData(request, reply, created, 201);
    },
  );

  app.get(
    '/v1/websites/:id/connectors',
    {
      config: { access: ON_WEBSITE_READ },
      schema: {
        summary: "List the website's connectors, revoked ones included, without any secret",
        tags: TAGS,
        params: WebsiteIdParamsSchema,
        querystring: ListQuerySchema,
        response: { 200: listEnvelope(ConnectorSchema).describe('One page of connectors, by id') },
      },
    },
    async (request, reply) => {
      const query = parseListQuery(request.query);
      const rows = listConnectors(db, authorizedWebsite(request).id)
        .filter((c) => query.after === undefined || c.id > query.after)
        .sort((a, b) => (a.id < b.id ? -1 : 1));
      return sendData(
        request,
        reply,
        pageOf(rows.slice(0, query.limit + 1), query, (c) => c.id),
      );
    },
  );

  app.post(
    '/v1/connectors/:cid/rotate',
    {
      config: { access: ON_CONNECTOR_ADMIN },
      schema: {
        summary: 'Issue a new token; the previous one stops at once',
        tags: TAGS,
        params: ConnectorIdParamsSchema,
        body: NoBodySchema,
        response: {
          200: dataEnvelope(ConnectorWithTokenSchema).describe('The connector and its new token, shown this once'),
        },
      },
    },
    async (request, reply) => {
      const rotated = db
        .transaction(() => {
          const connector = rotateConnector(db, masterKey, request.params.cid, services.now());
          audit(request, connector, 'connector.rotated');
          return connector;
        })
        .immediate();
      return sendData(request, reply, rotated);
    },
  );

  const statusChanges = [
    [
      'suspend',
      suspendConnector,
      'connector.suspended',
      'Suspend a connector: its requests are refused until it is resumed',
    ],
    ['resume', resumeConnector, 'connector.resumed', 'Resume a suspended connector'],
  ] as const;
  for (const [verb, change, action, summary] of statusChanges) {
    app.post(
      `/v1/connectors/:cid/${verb}`,
      {
        config: { access: ON_CONNECTOR_ADMIN },
        schema: {
          summary,
          tags: TAGS,
          params: ConnectorIdParamsSchema,
          body: NoBodySchema,
          response: { 200: ConnectorAnswer },
        },
      },
      async (request, reply) => {
        const changed = db
          .transaction(() => {
            const before = getConnector(db, request.params.cid)!;
            const after = change(db, request.params.cid, services.now());
            if (after.status !== before.status) audit(request, after, action);
            return after;
          })
          .immediate();
        return sendData(request, reply, changed);
      },
    );
  }

  app.delete(
    '/v1/connectors/:cid',
    {
      config: { access: ON_CONNECTOR_ADMIN },
      schema: {
        summary: 'Delete (revoke) a connector for good; its token never works again',
        tags: TAGS,
        params: ConnectorIdParamsSchema,
        body: NoBodySchema,
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      db.transaction(() => {
        const before = getConnector(db, request.params.cid)!;
        const after = deleteConnector(db, request.params.cid, services.now());
        if (after.status !== before.status) audit(request, after, 'connector.deleted');
      }).immediate();
      return reply.code(204).send();
    },
  );
};
