import type { RouteAccess } from '../access/route-access.js';
import type { Role } from '../records/record-types.js';

/**
 * The declared access of every organization route (docs/contract.md#routes, docs/organizations.md
 * "Routes"): the management scope enforces it before the handler, and the isolation matrix walks it.
 * `users` marks the routes an API key may not call (docs/contract.md#principals): member and
 * API-key management, transfers, erase and organization delete.
 */
export function onOrganization(
  minRole: Role,
  access: 'read' | 'mutate',
  who: 'members' | 'users' = 'members',
): RouteAccess {
  return {
    minRole,
    access,
    resource: { kind: 'organization', param: 'id' },
    ...(who === 'users' ? { apiKeys: false } : {}),
  };
}
