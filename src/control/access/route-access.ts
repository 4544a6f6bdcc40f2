import type { Role } from '../records/index.js';
import type { Access } from './authorize.js';

/**
 * Who may call one management route, declared in its route options (`config.access`) and
 * enforced before the handler by the management scope's hook (management-scope.ts). The
 * isolation-matrix test walks every declared route with every role, in the caller's own and in
 * a foreign organization (test/control/access/isolation-matrix.app.test.ts).
 */
export type RouteAccess =
  /** Anyone (register, login); a credential, when sent and valid, still sets request.principal. */
  | { readonly minRole: 'anonymous'; readonly access: Access }
  /** Any signed-in caller, not tied to one organization (e.g. GET /v1/auth/me, POST /v1/organizations). */
  | { readonly minRole: 'authenticated'; readonly access: Access; readonly apiKeys?: boolean }
  /** A member of the organization the route acts on, with at least `minRole` there. */
  | {
      readonly minRole: Role;
      readonly access: Access;
      /**
       * The path parameter naming the website, organization or connector acted on; it
       * is loaded and authorized before the handler (a connector through its website).
       */
      readonly resource: { readonly kind: 'website' | 'organization' | 'connector'; readonly param: string };
      /** false: API keys are refused with 403 auth.forbidden (docs/contract.md#principals); default true. */
      readonly apiKeys?: boolean;
    };

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Required on every route of the management scope. */
    access?: RouteAccess;
  }
}

/** One row of the management route table (for the isolation matrix and docs). */
export interface ManagementRoute {
  readonly method: string;
  readonly url: string;
  readonly access: RouteAccess;
}
