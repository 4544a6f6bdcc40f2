import { PLATFORM_ROLES, type PlatformRole, type UserPrincipal } from '../access/principal.js';
import type { Db } from '../../platform/storage/sqlite.js';
import type { Role } from '../records/record-types.js';
import { verifyAccessToken } from './access-tokens.js';
import type { AccountsContext } from './context.js';

/** Three base64url segments (the signature may be empty, as in alg none: still a JWT, and refused). */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** Whether a bearer credential is shaped like a JWT; API keys (nk_live_...) and connector tokens are not. */
export function looksLikeJwt(token: string): boolean {
  return JWT_SHAPE.test(token);
}

/** The user's role in one organization, read when an authorization asks (one indexed lookup). */
function membershipLookup(db: Db, userId: string): UserPrincipal['memberships'] {
  const statement = db.prepare('SELECT role FROM members WHERE organization_id = ? AND user_id = ?');
  return (organizationId) => (statement.get(organizationId, userId) as { role: Role } | undefined)?.role;
}

function platformRoleOf(db: Db, userId: string): PlatformRole | undefined {
  const row = db.prepare('SELECT platform_role AS platformRole FROM users WHERE id = ?').get(userId) as
    { platformRole: string | null } | undefined;
  const role = row?.platformRole;
  return role && (PLATFORM_ROLES as readonly string[]).includes(role) ? (role as PlatformRole) : undefined;
}

/**
 * The user slot of the principal resolvers (src/control/access/principal.ts): a bearer credential not shaped
 * like a JWT is not a user's (undefined, so API keys keep working); one that is must be a valid
 * access token of a live session, else 401 auth.unauthenticated (verifyAccessToken). The principal
 * carries the user's platform role and looks memberships up per organization, so
 * authorizeWebsite/authorizeOrganization decide for users as for API keys.
 */
export function userPrincipalResolver(
  context: () => Promise<AccountsContext>,
): (token: string) => Promise<UserPrincipal | undefined> {
  return async (token) => {
    if (!looksLikeJwt(token)) return undefined;
    const ctx = await context();
    const { userId, sessionId } = await verifyAccessToken(ctx, token);
    const platformRole = platformRoleOf(ctx.db, userId);
    return {
      kind: 'user',
      userId,
      sessionId,
      ...(platformRole ? { platformRole } : {}),
      memberships: membershipLookup(ctx.db, userId),
    };
  };
}
