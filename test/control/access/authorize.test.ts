import { describe, expect, it } from 'vitest';
import { authorizeOrganization, authorizeWebsite, roleIn, type Access } from '../../../src/control/access/authorize.js';
import { ANONYMOUS, type Principal } from '../../../src/control/access/principal.js';
import { AppError } from '../../../src/platform/errors/app-error.js';
import { ROLES, roleAtLeast, type Role } from '../../../src/control/records/record-types.js';

const OWN = 'org_own';
const FOREIGN = 'org_foreign';
const WEBSITES = new Map([
  ['web_own', { id: 'web_own', organizationId: OWN }],
  ['web_foreign', { id: 'web_foreign', organizationId: FOREIGN }],
]);
const websiteLookups = { website: (id: string) => WEBSITES.get(id) };
const orgLookups = { organizationExists: (id: string) => id === OWN || id === FOREIGN };
const API_KEY_ROLES = ['viewer', 'editor', 'organization_admin'] as const;
const ACCESSES: Access[] = ['read', 'mutate'];

const apiKey = (role: (typeof API_KEY_ROLES)[number]): Principal => ({
  kind: 'api_key',
  keyId: 'key_1',
  organizationId: OWN,
  role,
});
const member = (role: Role): Principal => ({
  kind: 'user',
  userId: 'usr_1',
  sessionId: 'ses_1',
  memberships: (org) => (org === OWN ? role : undefined),
});
const platform = (platformRole: 'admin' | 'super_admin'): Principal => ({
  kind: 'user',
  userId: 'usr_p',
  sessionId: 'ses_p',
  platformRole,
  memberships: () => undefined,
});

/** The error code a call throws, or 'ok'. */
function outcome(call: () => unknown): string {
  try {
    call();
    return 'ok';
  } catch (error) {
    if (error instanceof AppError) return `${error.status} ${error.code}`;
    throw error;
  }
}

/** docs/contract.md#tenant-isolation, written out as the expected answer. */
function expected(callerRole: Role | undefined, own: boolean, minRole: Role, access: Access, notFound: string): string {
  if (!own || callerRole === undefined) return access === 'read' ? `404 ${notFound}` : '403 auth.tenant_mismatch';
  return roleAtLeast(callerRole, minRole) ? 'ok' : '403 auth.forbidden';
}

const callers: Array<{ name: string; principal: Principal; role: Role }> = [
  ...API_KEY_ROLES.map((role) => ({ name: `api key ${role}`, principal: apiKey(role), role })),
  ...ROLES.map((role) => ({ name: `user ${role}`, principal: member(role), role })),
];

describe('authorizeWebsite and authorizeOrganization (pure): every caller role x own or foreign organization x read or mutate x minimum role', () => {
  for (const caller of callers) {
    for (const own of [true, false]) {
      for (const access of ACCESSES) {
        it(`${caller.name}, ${own ? 'own' : 'foreign'} organization, ${access}`, () => {
          for (const minRole of ROLES) {
            const website = own ? 'web_own' : 'web_foreign';
            const org = own ? OWN : FOREIGN;
            expect(
              outcome(() => authorizeWebsite(caller.principal, website, minRole, access, websiteLookups)),
              `website, min ${minRole}`,
            ).toBe(expected(caller.role, own, minRole, access, 'website.not_found'));
            expect(
              outcome(() => authorizeOrganization(caller.principal, org, minRole, access, orgLookups)),
              `organization, min ${minRole}`,
            ).toBe(expected(caller.role, own, minRole, access, 'organization.not_found'));
          }
        });
      }
    }
  }

  it('a foreign read is the same 404 as a resource that does not exist (existence is not revealed)', () => {
    for (const caller of callers) {
      expect(outcome(() => authorizeWebsite(caller.principal, 'web_missing', 'viewer', 'read', websiteLookups))).toBe(
        '404 website.not_found',
      );
      expect(outcome(() => authorizeWebsite(caller.principal, 'web_missing', 'viewer', 'mutate', websiteLookups))).toBe(
        '404 website.not_found',
      );
      expect(outcome(() => authorizeOrganization(caller.principal, 'org_missing', 'viewer', 'read', orgLookups))).toBe(
        '404 organization.not_found',
      );
    }
  });

  it('platform roles admin and super_admin pass in every organization, for reads and mutations, at every minimum role', () => {
    for (const p of [platform('admin'), platform('super_admin')]) {
      for (const access of ACCESSES) {
        for (const minRole of ROLES) {
          expect(outcome(() => authorizeWebsite(p, 'web_foreign', minRole, access, websiteLookups))).toBe('ok');
          expect(outcome(() => authorizeOrganization(p, FOREIGN, minRole, access, orgLookups))).toBe('ok');
        }
      }
      expect(outcome(() => authorizeWebsite(p, 'web_missing', 'viewer', 'read', websiteLookups))).toBe(
        '404 website.not_found',
      );
    }
  });

  it('an anonymous caller is 401 auth.unauthenticated before anything is looked up', () => {
    const lookups = {
      website: () => expect.unreachable('looked up'),
      organizationExists: () => expect.unreachable('looked up'),
    };
    for (const access of ACCESSES) {
      expect(outcome(() => authorizeWebsite(ANONYMOUS, 'web_own', 'viewer', access, lookups as never))).toBe(
        '401 auth.unauthenticated',
      );
      expect(outcome(() => authorizeOrganization(ANONYMOUS, OWN, 'viewer', access, lookups as never))).toBe(
        '401 auth.unauthenticated',
      );
    }
  });

  it('returns the website and the effective role; roleIn reads a user role per organization', () => {
    expect(authorizeWebsite(apiKey('editor'), 'web_own', 'viewer', 'read', websiteLookups)).toEqual({
      website: { id: 'web_own', organizationId: OWN },
      role: 'editor',
    });
    expect(roleIn(member('organization_owner'), OWN)).toBe('organization_owner');
    expect(roleIn(member('organization_owner'), FOREIGN)).toBeUndefined();
    expect(roleIn(apiKey('viewer'), FOREIGN)).toBeUndefined();
    expect(roleIn(platform('admin'), FOREIGN)).toBe('admin');
  });

  it('the 403 auth.forbidden message names the role needed and the role held', () => {
    expect(() => authorizeWebsite(apiKey('viewer'), 'web_own', 'organization_admin', 'mutate', websiteLookups)).toThrow(
      'This needs the organization_admin role or higher; the caller has viewer.',
    );
  });
});
