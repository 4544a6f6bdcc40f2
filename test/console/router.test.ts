import { describe, expect, it } from 'vitest';
import { entityPath, organizationPath, parseRoute, websitePath, websitesPath } from '../../src/console/router.js';

/** The console's addresses (docs/console.md): the daemon answers index.html for all, the browser picks the page. */
describe('parseRoute', () => {
  it('names the page of each console address', () => {
    expect(parseRoute('/console/')).toEqual({ page: 'organizations' });
    expect(parseRoute('/console')).toEqual({ page: 'organizations' });
    expect(parseRoute('/console/organizations')).toEqual({ page: 'organizations' });
    expect(parseRoute('/console/sign-in')).toEqual({ page: 'sign-in' });
    expect(parseRoute('/console/account')).toEqual({ page: 'account' });
    expect(parseRoute('/console/organizations/org_01ABC/websites')).toEqual({
      page: 'websites',
      organizationId: 'org_01ABC',
    });
    expect(parseRoute('/console/organizations/org_01ABC/api-keys')).toEqual({
      page: 'api-keys',
      organizationId: 'org_01ABC',
    });
    expect(parseRoute('/console/websites/web_1')).toEqual({ page: 'website', websiteId: 'web_1', section: 'overview' });
    expect(parseRoute('/console/websites/web_1/node')).toEqual({
      page: 'website',
      websiteId: 'web_1',
      section: 'node',
    });
    expect(parseRoute('/console/websites/web_1/entities/ent_9')).toEqual({
      page: 'entity',
      websiteId: 'web_1',
      entityId: 'ent_9',
    });
  });

  it("the mailed links' pages carry the query's token", () => {
    expect(parseRoute('/console/verify-email', '?token=abc')).toEqual({ page: 'verify-email', token: 'abc' });
    expect(parseRoute('/console/reset-password', '?token=r.s')).toEqual({ page: 'reset-password', token: 'r.s' });
    expect(parseRoute('/console/invitations/accept', '?token=t')).toEqual({ page: 'invitation', token: 't' });
    expect(parseRoute('/console/transfers/accept', '?token=t')).toEqual({ page: 'transfer', token: 't' });
    expect(parseRoute('/console/verify-email')).toEqual({ page: 'verify-email' });
  });

  it('an unknown address is not found, not another page', () => {
    for (const path of [
      '/console/websites',
      '/console/organizations/org_1',
      '/console/organizations/org_1/x',
      '/console/websites/web_1/overview',
      '/console/websites/web_1/x',
      '/console/websites/web_1/entities',
    ])
      expect(parseRoute(path), path).toEqual({ page: 'not-found' });
  });

  it('ids round-trip through their addresses, whatever they hold', () => {
    for (const id of ['org_01ABC', 'a b/c?d']) {
      expect(parseRoute(websitesPath(id))).toEqual({ page: 'websites', organizationId: id });
      expect(parseRoute(organizationPath(id, 'audit'))).toEqual({ page: 'audit', organizationId: id });
      expect(parseRoute(websitePath(id, 'webhooks'))).toEqual({ page: 'website', websiteId: id, section: 'webhooks' });
      expect(parseRoute(entityPath(id, id))).toEqual({ page: 'entity', websiteId: id, entityId: id });
    }
  });
});
