import { PLATFORM_ROLES } from '../access/principal.js';
import type { EffectiveRole } from '../access/authorize.js';
import { AppError } from '../../platform/errors/app-error.js';
import { roleAtLeast, type Role } from '../records/record-types.js';

function isPlatform(role: EffectiveRole): boolean {
  return (PLATFORM_ROLES as readonly string[]).includes(role);
}

/**
 * Nobody grants a role above their own (docs/organizations.md "Roles"): a member or an API key
 * gets at most the caller's role; platform admins may grant any. 403 auth.forbidden otherwise.
 */
export function assertMayGrant(caller: EffectiveRole, role: Role): void {
  if (isPlatform(caller) || roleAtLeast(caller as Role, role)) return;
  throw new AppError('auth.forbidden', `You cannot grant ${role}: it is above your own role (${caller}).`);
}

/** Nobody changes or removes a member whose role is above their own (an admin cannot demote an owner). */
export function assertMayManage(caller: EffectiveRole, memberRole: Role): void {
  if (isPlatform(caller) || roleAtLeast(caller as Role, memberRole)) return;
  throw new AppError(
    'auth.forbidden',
    `This member is ${memberRole}, above your own role (${caller}): only an equal or higher role may change or remove them.`,
  );
}
