import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { RoutePlugin } from '../app/route-plugin.js';
import { authorizedWebsite } from '../auth/management-scope.js';
import { auditRequest } from '../auth/request-audit.js';
import type { RouteAccess } from '../auth/route-access.js';
import { AppError } from '../errors/app-error.js';
import { sendData } from '../http/envelope.js';
import { pageOf, parseListQuery } from '../http/list-query.js';
import { parseInput } from '../organizations/parse-input.js';
import { readMasterKey } from '../storage/data-dir.js';
import { loadWebsiteInfo } from '../website/load-website.js';
import { countsAsVerified } from '../website/types.js';
import { createConnector, CreateConnectorSchema, deleteConnector, getConnector, listConnectors, resumeConnector, rotateConnector, suspendConnector, type ConnectorRecord } from './connectors.js';

const CreateBodySchema = CreateConnectorSchema.omit({ websiteId: true });
/** The lifecycle routes take no body; one sent by mistake is refused, not ignored. */
const NoBodySchema = z.strictObject({}).optional();

const ON_WEBSITE_READ: RouteAccess = { minRole: 'viewer', access: 'read', resource: { kind: 'website', param: 'id' } };
const ON_WEBSITE_ADMIN: RouteAccess = { minRole: 'organization_admin', access: 'mutate', resource: { kind: 'website', param: 'id' } };
const ON_CONNECTOR_ADMIN: RouteAccess = { minRole: 'organization_admin', access: 'mutate', resource: { kind: 'connector', param: 'cid' } };

/**
 * 409 website.not_verified unless the website counts as verified (verified or in grace: the
 * check MCP makes too) or the operator lets unverified websites have connectors
 * (allowUnverifiedConnectors). docs/contract.md#connector-lifecycle: a website should be
 * verified before a connector token is issued.
 */
function assertMayIssueToken(verified: boolean, allowUnverified: boolean, websiteId: string): void {
  if (verified || allowUnverified) return;
  throw new AppError('website.not_verified', `Website ${websiteId} is not verified, so no connector token is issued: verify ownership first (POST /v1/websites/${websiteId}/verification/challenge, then .../check).`);
}

/**
 * Connectors over HTTP (docs/websites.md "Connectors"), the same functions as `nodectl admin
 * connector`: create (token shown once; the website must be verified), list (no secrets),
 * rotate (a new token shown once), suspend, resume and delete. Every route is organization_admin
 * but the list (viewer).
 */
export const connectorRoutes: RoutePlugin = async (app, { services }) => {
  const db = services.controlDb;
  const masterKey = readMasterKey(services.layout);
  const audit = (request: FastifyRequest, connector: ConnectorRecord, action: string) =>
    auditRequest(services, request, { organizationId: request.tenant!.organizationId, action, target: connector.id, details: { website_id: connector.scope.websiteId, token_version: connector.tokenVersion } });

  app.post<{ Params: { id: string } }>('/v1/websites/:id/connectors', { config: { access: ON_WEBSITE_ADMIN } }, async (request, reply) => {
    const body = parseInput(CreateBodySchema, request.body, 'connector');
    const website = authorizedWebsite(request);
    const verified = countsAsVerified(loadWebsiteInfo(db, website.id)?.verification.state ?? 'pending');
    assertMayIssueToken(verified, services.config.settings.allowUnverifiedConnectors, website.id);
    const created = db.transaction(() => {
      const connector = createConnector(db, masterKey, { websiteId: website.id, name: body.name, connectorType: body.connectorType, sourceTypes: body.sourceTypes }, services.now());
      audit(request, connector, 'connector.created');
      return connector;
    }).immediate();
    return sendData(request, reply, created, 201);
  });

  app.get<{ Params: { id: string } }>('/v1/websites/:id/connectors', { config: { access: ON_WEBSITE_READ } }, async (request, reply) => {
    const query = parseListQuery(request.query);
    const rows = listConnectors(db, authorizedWebsite(request).id).filter((c) => query.after === undefined || c.id > query.after).sort((a, b) => (a.id < b.id ? -1 : 1));
    return sendData(request, reply, pageOf(rows.slice(0, query.limit + 1), query, (c) => c.id));
  });

  app.post<{ Params: { cid: string } }>('/v1/connectors/:cid/rotate', { config: { access: ON_CONNECTOR_ADMIN } }, async (request, reply) => {
    parseInput(NoBodySchema, request.body ?? undefined, 'rotate request');
    const rotated = db.transaction(() => {
      const connector = rotateConnector(db, masterKey, request.params.cid, services.now());
      audit(request, connector, 'connector.rotated');
      return connector;
    }).immediate();
    return sendData(request, reply, rotated);
  });

  for (const [verb, change, action] of [['suspend', suspendConnector, 'connector.suspended'], ['resume', resumeConnector, 'connector.resumed']] as const) {
    app.post<{ Params: { cid: string } }>(`/v1/connectors/:cid/${verb}`, { config: { access: ON_CONNECTOR_ADMIN } }, async (request, reply) => {
      parseInput(NoBodySchema, request.body ?? undefined, `${verb} request`);
      const changed = db.transaction(() => {
        const before = getConnector(db, request.params.cid)!;
        const after = change(db, request.params.cid, services.now());
        if (after.status !== before.status) audit(request, after, action);
        return after;
      }).immediate();
      return sendData(request, reply, changed);
    });
  }

  app.delete<{ Params: { cid: string } }>('/v1/connectors/:cid', { config: { access: ON_CONNECTOR_ADMIN } }, async (request, reply) => {
    parseInput(NoBodySchema, request.body ?? undefined, 'delete request');
    db.transaction(() => {
      const before = getConnector(db, request.params.cid)!;
      const after = deleteConnector(db, request.params.cid, services.now());
      if (after.status !== before.status) audit(request, after, 'connector.deleted');
    }).immediate();
    return reply.code(204).send();
  });
};
