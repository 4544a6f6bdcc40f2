import { describe, expect, it } from 'vitest';
import { parseRoute, websitesPath } from '../../src/console/router.js';

/** The console's addresses (docs/console.md): the daemon answers index.html for all, the browser picks the page. */
describe('parseRoute', () => {
  it('names the page of each console address', () => {
    expect(parseRoute('/console/')).toEqual({ page: 'organizations' });
    expect(parseRoute('/console')).toEqual({ page: 'organizations' });
    expect(parseRoute('/console/organizations')).toEqual({ page: 'organizations' });
    expect(parseRoute('/console/sign-in')).toEqual({ page: 'sign-in' });
    expect(parseRoute('/console/organizations/org_01ABC/websites')).toEqual({
      page: 'websites',
      organizationId: 'org_01ABC',
    });
  });

  it('an unknown address is not found, not another page', () => {
    for (const path of ['/console/websites', '/console/organizations/org_1', '/console/organizations/org_1/x'])
      expect(parseRoute(path), path).toEqual({ page: 'not-found' });
  });

  it('an organization id round-trips through its address, whatever it holds', () => {
    for (const id of ['org_01ABC', 'a b/c?d'])
      expect(parseRoute(websitesPath(id))).toEqual({ page: 'websites', organizationId: id });
  });
});
