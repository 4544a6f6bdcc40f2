import { z } from 'zod';
import type { RoutePlugin } from '../app/route-plugin.js';
import { authorizeOrganization } from '../auth/authorize.js';
import { authorizedWebsite } from '../auth/management-scope.js';
import { auditRequest } from '../auth/request-audit.js';
import type { RouteAccess } from '../auth/route-access.js';
import { LanguageTagSchema } from '../contract/ingest-item.js';
import { AppError } from '../errors/app-error.js';
import { sendData } from '../http/envelope.js';
import { pageOf, parseListQuery } from '../http/list-query.js';
import { parseInput } from '../organizations/parse-input.js';
import { authorizedOrganization } from '../organizations/request-caller.js';
import { getOrganization } from '../tenancy/organizations.js';
import { DomainSchema } from '../tenancy/records.js';
import { createWebsite } from '../tenancy/websites.js';
import { addAlias, removeAlias } from './aliases.js';
import { deleteWebsite } from './delete-website.js';
import { transferWebsite } from './transfer-website.js';
import { presentWebsite } from './view.js';
import { assertDomainFree, listWebsiteRows, readWebsiteRow, updateWebsiteRow, type WebsiteRow } from './website-store.js';

const NameSchema = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');
const BrandSchema = z.string().trim().min(1, 'must not be empty (send null to use the name)').max(200, 'must be at most 200 characters').nullable();

const CreateBodySchema = z.strictObject({ domain: DomainSchema, name: NameSchema, brand: BrandSchema.optional(), defaultLanguage: LanguageTagSchema.optional() });
const UpdateBodySchema = z
  .strictObject({ name: NameSchema.optional(), brand: BrandSchema.optional(), defaultLanguage: LanguageTagSchema.optional() })
  .refine((body) => Object.keys(body).length > 0, 'give at least one of name, brand, defaultLanguage');
const DeleteBodySchema = z.strictObject({ confirm: z.string({ error: 'must be the website\'s domain' }) });
const TransferBodySchema = z.strictObject({ target_organization_id: z.string().min(1, 'must name an organization') });
const AliasBodySchema = z.strictObject({ domain: DomainSchema });

const onOrganization = (minRole: 'viewer' | 'organization_admin', access: 'read' | 'mutate'): RouteAccess => ({ minRole, access, resource: { kind: 'organization', param: 'id' } });
const onWebsite = (minRole: 'viewer' | 'editor' | 'organization_admin', access: 'read' | 'mutate', apiKeys = true): RouteAccess => ({ minRole, access, resource: { kind: 'website', param: 'id' }, ...(apiKeys ? {} : { apiKeys: false }) });

/**
 * The website routes (docs/websites.md "Routes"): list and create under an organization; read,
 * update, delete and transfer one website; add and remove its alias domains. Verification and
 * connectors have their own groups (src/verification/routes.ts, src/connectors/routes.ts).
 */
export const websiteRoutes: RoutePlugin = async (app, { services }) => {
  const db = services.controlDb;
  const websiteOf = (id: string): WebsiteRow => readWebsiteRow(db, id)!;

  app.get<{ Params: { id: string } }>('/v1/organizations/:id/websites', { config: { access: onOrganization('viewer', 'read') } }, async (request, reply) => {
    const query = parseListQuery(request.query);
    const rows = listWebsiteRows(db, authorizedOrganization(request).organizationId, query);
    return sendData(request, reply, pageOf(rows, query, (w) => w.id, (w) => presentWebsite(db, w)));
  });

  // The plan's website limit is checked by createWebsite in the same transaction as the insert.
  app.post<{ Params: { id: string } }>('/v1/organizations/:id/websites', { config: { access: onOrganization('organization_admin', 'mutate') } }, async (request, reply) => {
    const body = parseInput(CreateBodySchema, request.body, 'website');
    const organizationId = authorizedOrganization(request).organizationId;
    const website = db.transaction(() => {
      assertDomainFree(db, body.domain);
      const created = createWebsite(db, { organizationId, domain: body.domain, name: body.name, defaultLanguage: body.defaultLanguage }, services.now());
      const row = body.brand !== undefined ? updateWebsiteRow(db, created.id, { brand: body.brand }) : websiteOf(created.id);
      auditRequest(services, request, { organizationId, action: 'website.created', target: row.id, details: { domain: row.domain, name: row.name } });
      return row;
    }).immediate();
    return sendData(request, reply, presentWebsite(db, website), 201);
  });

  app.get<{ Params: { id: string } }>('/v1/websites/:id', { config: { access: onWebsite('viewer', 'read') } }, async (request, reply) => {
    return sendData(request, reply, presentWebsite(db, websiteOf(authorizedWebsite(request).id)));
  });

  app.patch<{ Params: { id: string } }>('/v1/websites/:id', { config: { access: onWebsite('editor', 'mutate') } }, async (request, reply) => {
    if (typeof request.body === 'object' && request.body !== null && 'domain' in request.body) {
      throw new AppError('validation.failed', 'A website\'s domain cannot change: its verification and published address hang on it. Add the new domain as an alias (POST /v1/websites/:id/aliases), or create a website for it.', { details: { fields: [{ path: 'domain', message: 'cannot be changed' }] } });
    }
    const changes = parseInput(UpdateBodySchema, request.body, 'website update');
    const website = authorizedWebsite(request);
    const updated = db.transaction(() => {
      const row = updateWebsiteRow(db, website.id, changes);
      auditRequest(services, request, { organizationId: website.organizationId, action: 'website.updated', target: website.id, details: { fields: Object.keys(changes).sort().join(',') } });
      return row;
    }).immediate();
    return sendData(request, reply, presentWebsite(db, updated));
  });

  app.delete<{ Params: { id: string } }>('/v1/websites/:id', { config: { access: onWebsite('organization_admin', 'mutate') } }, async (request, reply) => {
    const { confirm } = parseInput(DeleteBodySchema, request.body, 'delete confirmation');
    const website = websiteOf(authorizedWebsite(request).id);
    if (confirm.trim().toLowerCase() !== website.domain) {
      throw new AppError('validation.failed', `The confirmation does not name this website: send {"confirm": "${website.domain}"} to delete it with its graph and every published version.`, { details: { fields: [{ path: 'confirm', message: `must be "${website.domain}"` }] } });
    }
    await deleteWebsite(services, website, () => auditRequest(services, request, { organizationId: website.organizationId, action: 'website.deleted', target: website.id, details: { domain: website.domain } }));
    services.logger.info({ requestId: request.id, websiteId: website.id }, 'website deleted');
    return reply.code(204).send();
  });

  // organization_admin on the source (declared) and organization_owner on the target (checked here); API keys never own an organization.
  app.post<{ Params: { id: string } }>('/v1/websites/:id/transfer', { config: { access: onWebsite('organization_admin', 'mutate', false) } }, async (request, reply) => {
    const { target_organization_id: target } = parseInput(TransferBodySchema, request.body, 'transfer');
    const website = websiteOf(authorizedWebsite(request).id);
    authorizeOrganization(request.principal, target, 'organization_owner', 'mutate', { organizationExists: (id) => getOrganization(db, id) !== undefined });
    const moved = transferWebsite(db, website, target, services.now(), () => {
      const details = { domain: website.domain, from_organization_id: website.organizationId, to_organization_id: target };
      auditRequest(services, request, { organizationId: website.organizationId, action: 'website.transferred_out', target: website.id, details });
      auditRequest(services, request, { organizationId: target, action: 'website.transferred_in', target: website.id, details });
    });
    return sendData(request, reply, presentWebsite(db, moved));
  });

  app.post<{ Params: { id: string } }>('/v1/websites/:id/aliases', { config: { access: onWebsite('organization_admin', 'mutate') } }, async (request, reply) => {
    const { domain } = parseInput(AliasBodySchema, request.body, 'alias');
    const website = authorizedWebsite(request);
    db.transaction(() => {
      addAlias(db, website.id, domain);
      auditRequest(services, request, { organizationId: website.organizationId, action: 'website.alias_added', target: website.id, details: { alias: domain } });
    }).immediate();
    return sendData(request, reply, presentWebsite(db, websiteOf(website.id)), 201);
  });

  app.delete<{ Params: { id: string; domain: string } }>('/v1/websites/:id/aliases/:domain', { config: { access: onWebsite('organization_admin', 'mutate') } }, async (request, reply) => {
    const website = authorizedWebsite(request);
    const domain = request.params.domain.trim().toLowerCase();
    db.transaction(() => {
      removeAlias(db, website.id, domain);
      auditRequest(services, request, { organizationId: website.organizationId, action: 'website.alias_removed', target: website.id, details: { alias: domain } });
    }).immediate();
    return reply.code(204).send();
  });
};
