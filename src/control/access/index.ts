/** The public face of src/control/access: what the rest of src/ may import from it. */
export { apiKeyPrincipalResolver } from './api-key-principal.js';
export { authorizeOrganization } from './authorize.js';
export type { EffectiveRole } from './authorize.js';
export { authorizedWebsite, managementScope } from './management-scope.js';
export type { AuthorizedTenant } from './management-scope.js';
export { PLATFORM_ROLES } from './principal.js';
export type { PlatformRole, PrincipalResolvers, UserPrincipal } from './principal.js';
export { actorOf, auditRequest } from './request-audit.js';
export { limitedByAddress, nodeReadRule } from './request-limits.js';
export type { ManagementRoute, RouteAccess } from './route-access.js';
export { rateLimitsPruneJob } from './rate-limits-prune-job.js';
