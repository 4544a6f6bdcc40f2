import type { Role, ApiKeyRecord } from '../records/index.js';

/** Roles above every organization (docs/contract.md#principals): they pass every organization check. */
export const PLATFORM_ROLES = ['admin', 'super_admin'] as const;
export type PlatformRole = (typeof PLATFORM_ROLES)[number];

/** A user's role in one organization, undefined when the user is not a member of it. */
export type MembershipLookup = (organizationId: string) => Role | undefined;

/** A signed-in user (an access token of a live session). Its role depends on the organization asked about. */
export interface UserPrincipal {
  readonly kind: 'user';
  readonly userId: string;
  readonly sessionId: string;
  readonly platformRole?: PlatformRole;
  readonly memberships: MembershipLookup;
}

/** An API key: one role in the one organization it was created under. */
export interface ApiKeyPrincipal {
  readonly kind: 'api_key';
  readonly keyId: string;
  readonly organizationId: string;
  readonly role: ApiKeyRecord['role'];
}

/** No credential (only routes declared minRole 'anonymous' accept it). */
export interface AnonymousPrincipal {
  readonly kind: 'anonymous';
}

/** Who is calling a management route, resolved once per request (src/control/access/management-scope.ts). */
export type Principal = UserPrincipal | ApiKeyPrincipal | AnonymousPrincipal;

export const ANONYMOUS: AnonymousPrincipal = Object.freeze({ kind: 'anonymous' });

/**
 * Turns a presented credential into a principal. Each returns undefined when the credential is not
 * of its kind, and throws AppError auth.unauthenticated when it is but is bad (revoked, expired).
 */
export interface PrincipalResolvers {
  /** API keys (nk_live_...), sent as Authorization: Bearer or X-Api-Key. */
  resolveApiKeyPrincipal(key: string): ApiKeyPrincipal | undefined;
  /**
   * The user slot: verifies a user's access token (a JWT) and returns its session's user. The
   * daemon plugs the accounts feature's verifier in (src/daemon/app.ts lists the resolvers;
   * src/control/accounts/user-principal.ts); tests may plug fake sessions in through buildApp's options.
   */
  resolveUserPrincipal(token: string): UserPrincipal | undefined | Promise<UserPrincipal | undefined>;
}
