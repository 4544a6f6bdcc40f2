import type { FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { RoutePlugin } from '../../platform/app/route-plugin.js';
import { authorizeOrganization } from '../access/authorize.js';
import { authorizedWebsite } from '../access/management-scope.js';
import { auditRequest } from '../access/request-audit.js';
import type { RouteAccess } from '../access/route-access.js';
import { AppError } from '../../platform/errors/app-error.js';
import { sendData } from '../../platform/http/envelope.js';
import { ListQuerySchema, pageOf, parseListQuery } from '../../platform/http/list-query.js';
import { dataEnvelope, listEnvelope, NoContent } from '../../platform/http/route-docs.js';
import { authorizedOrganization } from '../organizations/request-caller.js';
import { getOrganization } from '../records/organizations.js';
import { createWebsite } from '../records/websites.js';
import { addAlias, removeAlias } from './aliases.js';
import { deleteWebsite } from './delete-website.js';
import {
  AddAliasBodySchema,
  AliasParamsSchema,
  CreateWebsiteBodySchema,
  DeleteWebsiteBodySchema,
  OrganizationIdParamsSchema,
  TransferWebsiteBodySchema,
  UpdateWebsiteBodySchema,
  WebsiteIdParamsSchema,
  WebsiteSchema,
} from './schemas.js';
import { transferWebsite } from './transfer-website.js';
import { presentWebsite } from './view.js';
import {
  assertDomainFree,
  listWebsiteRows,
  readWebsiteRow,
  updateWebsiteRow,
  type WebsiteRow,
} from './website-store.js';

const onOrganization = (minRole: 'viewer' | 'organization_admin', access: 'read' | 'mutate'): RouteAccess => ({
  minRole,
  access,
  resource: { kind: 'organization', param: 'id' },
});
const onWebsite = (
  minRole: 'viewer' | 'editor' | 'organization_admin',
  access: 'read' | 'mutate',
  apiKeys = true,
): RouteAccess => ({
  minRole,
  access,
  resource: { kind: 'website', param: 'id' },
  ...(apiKeys ? {} : { apiKeys: false }),
});

const TAGS = ['websites'];
const WebsiteAnswer = dataEnvelope(WebsiteSchema).describe('The website');

/**
 * A body naming `domain` is refused with what to do instead, before the body schema runs (whose
 * strict "unrecognized key" would not say why): the route's own preValidation hook, after the
 * management scope's access check.
 */
async function refuseDomainChange(request: FastifyRequest): Promise<void> {
  if (typeof request.body === 'object' && request.body !== null && 'domain' in request.body) {
    throw new AppError(
      'validation.failed',
      "A website's domain cannot change: its verification and published address hang on it. Add the new domain as an alias (POST /v1/websites/:id/aliases), or create a website for it.",
      { details: { fields: [{ path: 'domain', message: 'cannot be changed' }] } },
    );
  }
}

/**
 * The website routes (docs/websites.md "Routes"): list and create under an organization; read,
 * update, delete and transfer one website; add and remove its alias domains. Verification and
 * connectors have their own groups (src/control/verification/routes.ts, src/control/connectors/routes.ts).
 * Requests are validated by the schemas of ./schemas.ts, which the OpenAPI document describes.
 */
export const websiteRoutes: RoutePlugin = async (plainApp, { services }) => {
  const app = plainApp.withTypeProvider<ZodTypeProvider>();
  const db = services.controlDb;
  const websiteOf = (id: string): WebsiteRow => readWebsiteRow(db, id)!;

  app.get(
    '/v1/organizations/:id/websites',
    {
      config: { access: onOrganization('viewer', 'read') },
      schema: {
        summary: "List the organization's websites, oldest first",
        tags: TAGS,
        params: OrganizationIdParamsSchema,
        querystring: ListQuerySchema,
        response: { 200: listEnvelope(WebsiteSchema).describe("One page of the organization's websites") },
      },
    },
    async (request, reply) => {
      const query = parseListQuery(request.query);
      const rows = listWebsiteRows(db, authorizedOrganization(request).organizationId, query);
      return sendData(
        request,
        reply,
        pageOf(
          rows,
          query,
          (w) => w.id,
          (w) => presentWebsite(db, w),
        ),
      );
    },
  );

  // The plan's website limit is checked by createWebsite in the same transaction as the insert.
  app.post(
    '/v1/organizations/:id/websites',
    {
      config: { access: onOrganization('organization_admin', 'mutate'), errors: ['entitlement.limit_reached'] },
      schema: {
        summary: 'Create a website (verification pending)',
        tags: TAGS,
        params: OrganizationIdParamsSchema,
        body: CreateWebsiteBodySchema,
        response: { 201: WebsiteAnswer },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const organizationId = authorizedOrganization(request).organizationId;
      const website = db
        .transaction(() => {
          assertDomainFree(db, body.domain);
          const created = createWebsite(
            db,
            { organizationId, domain: body.domain, name: body.name, defaultLanguage: body.defaultLanguage },
            services.now(),
          );
          const row =
            body.brand !== undefined ? updateWebsiteRow(db, created.id, { brand: body.brand }) : websiteOf(created.id);
          auditRequest(services, request, {
            organizationId,
            action: 'website.created',
            target: row.id,
            details: { domain: row.domain, name: row.name },
          });
          return row;
        })
        .immediate();
      return sendData(request, reply, presentWebsite(db, website), 201);
    },
  );

  app.get(
    '/v1/websites/:id',
    {
      config: { access: onWebsite('viewer', 'read') },
      schema: {
        summary: 'Read a website',
        tags: TAGS,
        params: WebsiteIdParamsSchema,
        response: { 200: WebsiteAnswer },
      },
    },
    async (request, reply) => sendData(request, reply, presentWebsite(db, websiteOf(authorizedWebsite(request).id))),
  );

  app.patch(
    '/v1/websites/:id',
    {
      config: { access: onWebsite('editor', 'mutate') },
      preValidation: refuseDomainChange,
      schema: {
        summary: "Change a website's name, brand or default language (never its domain)",
        tags: TAGS,
        params: WebsiteIdParamsSchema,
        body: UpdateWebsiteBodySchema,
        response: { 200: WebsiteAnswer },
      },
    },
    async (request, reply) => {
      const changes = request.body;
      const website = authorizedWebsite(request);
      const updated = db
        .transaction(() => {
          const row = updateWebsiteRow(db, website.id, changes);
          auditRequest(services, request, {
            organizationId: website.organizationId,
            action: 'website.updated',
            target: website.id,
            details: { fields: Object.keys(changes).sort().join(',') },
          });
          return row;
        })
        .immediate();
      return sendData(request, reply, presentWebsite(db, updated));
    },
  );

  app.delete(
    '/v1/websites/:id',
    {
      config: {
        access: onWebsite('organization_admin', 'mutate'),
        errors: ['publish.conflict', 'privacy.erasure_in_progress'],
      },
      schema: {
        summary: 'Delete a website for good, with its graph and every published version',
        tags: TAGS,
        params: WebsiteIdParamsSchema,
        body: DeleteWebsiteBodySchema,
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      const { confirm } = request.body;
      const website = websiteOf(authorizedWebsite(request).id);
      if (confirm.trim().toLowerCase() !== website.domain) {
        throw new AppError(
          'validation.failed',
          `The confirmation does not name this website: send {"confirm": "${website.domain}"} to delete it with its graph and every published version.`,
          { details: { fields: [{ path: 'confirm', message: `must be "${website.domain}"` }] } },
        );
      }
      await deleteWebsite(services, website, () =>
        auditRequest(services, request, {
          organizationId: website.organizationId,
          action: 'website.deleted',
          target: website.id,
          details: { domain: website.domain },
        }),
      );
      services.logger.info({ requestId: request.id, websiteId: website.id }, 'website deleted');
      return reply.code(204).send();
    },
  );

  // organization_admin on the source (declared) and organization_owner on the target (checked here); API keys never own an organization.
  app.post(
    '/v1/websites/:id/transfer',
    {
      config: {
        access: onWebsite('organization_admin', 'mutate', false),
        errors: ['organization.not_found', 'entitlement.limit_reached', 'privacy.erasure_in_progress'],
      },
      schema: {
        summary: 'Move a website to another organization the caller owns',
        tags: TAGS,
        params: WebsiteIdParamsSchema,
        body: TransferWebsiteBodySchema,
        response: { 200: WebsiteAnswer },
      },
    },
    async (request, reply) => {
      const { target_organization_id: target } = request.body;
      const website = websiteOf(authorizedWebsite(request).id);
      authorizeOrganization(request.principal, target, 'organization_owner', 'mutate', {
        organizationExists: (id) => getOrganization(db, id) !== undefined,
      });
      const moved = transferWebsite(db, website, target, services.now(), () => {
        const details = {
          domain: website.domain,
          from_organization_id: website.organizationId,
          to_organization_id: target,
        };
        auditRequest(services, request, {
          organizationId: website.organizationId,
          action: 'website.transferred_out',
          target: website.id,
          details,
        });
        auditRequest(services, request, {
          organizationId: target,
          action: 'website.transferred_in',
          target: website.id,
          details,
        });
      });
      return sendData(request, reply, presentWebsite(db, moved));
    },
  );

  app.post(
    '/v1/websites/:id/aliases',
    {
      config: { access: onWebsite('organization_admin', 'mutate') },
      schema: {
        summary: 'Add an alias domain (unverified until verified on its own)',
        tags: TAGS,
        params: WebsiteIdParamsSchema,
        body: AddAliasBodySchema,
        response: { 201: WebsiteAnswer },
      },
    },
    async (request, reply) => {
      const { domain } = request.body;
      const website = authorizedWebsite(request);
      db.transaction(() => {
        addAlias(db, website.id, domain);
        auditRequest(services, request, {
          organizationId: website.organizationId,
          action: 'website.alias_added',
          target: website.id,
          details: { alias: domain },
        });
      }).immediate();
      return sendData(request, reply, presentWebsite(db, websiteOf(website.id)), 201);
    },
  );

  app.delete(
    '/v1/websites/:id/aliases/:domain',
    {
      config: { access: onWebsite('organization_admin', 'mutate'), errors: ['website.alias_not_found'] },
      schema: {
        summary: 'Remove an alias domain and its verification',
        tags: TAGS,
        params: AliasParamsSchema,
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      const website = authorizedWebsite(request);
      const { domain } = request.params;
      db.transaction(() => {
        removeAlias(db, website.id, domain);
        auditRequest(services, request, {
          organizationId: website.organizationId,
          action: 'website.alias_removed',
          target: website.id,
          details: { alias: domain },
        });
      }).immediate();
      return reply.code(204).send();
    },
  );
};
