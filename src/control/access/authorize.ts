import { AppError } from '../../platform/errors/app-error.js';
import { roleAtLeast, type Role } from '../records/record-types.js';
import { PLATFORM_ROLES, type PlatformRole, type Principal } from './principal.js';

/** A read answers 404 across tenants (existence is not revealed); a mutation answers 403 (docs/contract.md#tenant-isolation). */
export type Access = 'read' | 'mutate';

/** The caller's standing in the organization a request acts on: its role there, or its platform role. */
export type EffectiveRole = Role | PlatformRole;

/** The tenant fields of a website that authorization needs. */
export interface TenantWebsite {
  readonly id: string;
  readonly organizationId: string;
}

export interface OrganizationLookups {
  organizationExists(organizationId: string): boolean;
}

export interface WebsiteLookups<W extends TenantWebsite> {
  website(websiteId: string): W | undefined;
}

export interface ConnectorLookups<W extends TenantWebsite> {
  /** The website a connector belongs to, undefined for an unknown connector. */
  connectorWebsite(connectorId: string): W | undefined;
}

/**
 * Pure: the caller's role in `organizationId`, or undefined when it is not a member. A user's
 * comes from its memberships; an API key has its role in its own organization only; platform
 * roles (admin, super_admin) stand in every organization.
 */
export function roleIn(principal: Principal, organizationId: string): EffectiveRole | undefined {
  switch (principal.kind) {
    case 'anonymous':
      return undefined;
    case 'api_key':
      return principal.organizationId === organizationId ? principal.role : undefined;
    case 'user':
      if (principal.platformRole && (PLATFORM_ROLES as readonly string[]).includes(principal.platformRole))
        return principal.platformRole;
      return principal.memberships(organizationId);
  }
}

function isPlatformRole(role: EffectiveRole): role is PlatformRole {
  return (PLATFORM_ROLES as readonly string[]).includes(role);
}

/** 401 for a caller without a credential. */
export function unauthenticated(): AppError {
  return new AppError(
    'auth.unauthenticated',
    'Send an API key as Authorization: Bearer <key> or X-Api-Key (or a user access token as Authorization: Bearer <token>).',
  );
}

/**
 * The tenant-isolation rule, once: `notFound` when the resource is missing, or foreign on a read;
 * 403 auth.tenant_mismatch when foreign on a mutation; 403 auth.forbidden when the caller's role
 * is below `minRole`. Returns the caller's effective role.
 */
function decide(
  principal: Principal,
  organizationId: string | undefined,
  minRole: Role,
  access: Access,
  notFound: () => AppError,
  noun: string,
): EffectiveRole {
  if (principal.kind === 'anonymous') throw unauthenticated();
  if (organizationId === undefined) throw notFound();
  const role = roleIn(principal, organizationId);
  if (role === undefined) {
    if (access === 'read') throw notFound();
    throw new AppError('auth.tenant_mismatch', `This ${noun} belongs to another organization.`);
  }
  if (!isPlatformRole(role) && !roleAtLeast(role, minRole))
    throw new AppError('auth.forbidden', `This needs the ${minRole} role or higher; the caller has ${role}.`);
  return role;
}

/** Pure: authorizes `principal` on an organization (docs/contract.md#tenant-isolation); throws the contract's AppError. */
export function authorizeOrganization(
  principal: Principal,
  organizationId: string,
  minRole: Role,
  access: Access,
  lookups: OrganizationLookups,
): EffectiveRole {
  if (principal.kind === 'anonymous') throw unauthenticated();
  const exists = lookups.organizationExists(organizationId);
  return decide(
    principal,
    exists ? organizationId : undefined,
    minRole,
    access,
    () => new AppError('organization.not_found', `No organization ${organizationId} among yours.`),
    'organization',
  );
}

/** Pure: authorizes `principal` on a website through its organization (docs/contract.md#tenant-isolation); throws the contract's AppError. */
export function authorizeWebsite<W extends TenantWebsite>(
  principal: Principal,
  websiteId: string,
  minRole: Role,
  access: Access,
  lookups: WebsiteLookups<W>,
): { website: W; role: EffectiveRole } {
  if (principal.kind === 'anonymous') throw unauthenticated();
  const website = lookups.website(websiteId);
  const role = decide(
    principal,
    website?.organizationId,
    minRole,
    access,
    () => new AppError('website.not_found', `No website ${websiteId} in your organization.`),
    'website',
  );
  return { website: website!, role };
}

/** Pure: authorizes `principal` on a connector through its website's organization; an unknown (or, on a read, foreign) connector is 404 connector.not_found. */
export function authorizeConnector<W extends TenantWebsite>(
  principal: Principal,
  connectorId: string,
  minRole: Role,
  access: Access,
  lookups: ConnectorLookups<W>,
): { website: W; role: EffectiveRole } {
  if (principal.kind === 'anonymous') throw unauthenticated();
  const website = lookups.connectorWebsite(connectorId);
  const role = decide(
    principal,
    website?.organizationId,
    minRole,
    access,
    () => new AppError('connector.not_found', `No connector ${connectorId} in your organization.`),
    'connector',
  );
  return { website: website!, role };
}
