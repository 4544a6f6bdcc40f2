import { accountRoutes, jwksRoutes } from '../accounts/routes.js';
import { analyticsRoutes } from '../analytics/routes.js';
import type { RoutePlugin } from '../app/route-plugin.js';
import { connectorRoutes } from '../connectors/routes.js';
import { limitedByAddress } from '../auth/request-limits.js';
import { ingestRoutes } from '../ingest/routes.js';
import { jobRoutes } from '../jobs/routes.js';
import { previewRoutes } from '../knowledge/preview-routes.js';
import { knowledgeRoutes } from '../knowledge/routes.js';
import { nodeFileRoutes } from '../node-files/routes.js';
import { billingRoutes, organizationsRoutes } from '../organizations/routes.js';
import { planRoutes } from '../plans/routes.js';
import { openApiRoutes } from '../openapi/routes.js';
import { probeRoutes } from '../probes/routes.js';
import { publishRoutes } from '../publish/routes.js';
import { verificationRoutes } from '../verification/routes.js';
import { waitlistRoutes } from '../waitlist/routes.js';
import { webhookRoutes } from '../webhooks/routes.js';
import { websiteRoutes } from '../websites/routes.js';

/**
 * Every route group of the daemon, by scope; each group lives in its feature's folder. Add one
 * line per group:
 * - public: no credential (probes, waitlist, node files); limitedByAddress puts a group under the
 *   general rate limit per client address (probes are never limited; the waitlist has its own);
 * - connector: /v1/ingest/*, signed by a connector (the group verifies it);
 * - management: every other /v1 route; each declares config.access and the management scope
 *   resolves the principal and authorizes it (src/auth/management-scope.ts).
 */
export const PUBLIC_ROUTES: readonly RoutePlugin[] = [probeRoutes, waitlistRoutes, ...[nodeFileRoutes, jwksRoutes, billingRoutes, openApiRoutes].map(limitedByAddress)];
export const CONNECTOR_ROUTES: readonly RoutePlugin[] = [ingestRoutes];
export const MANAGEMENT_ROUTES: readonly RoutePlugin[] = [accountRoutes, publishRoutes, organizationsRoutes, planRoutes, webhookRoutes, websiteRoutes, verificationRoutes, connectorRoutes, knowledgeRoutes, previewRoutes, analyticsRoutes, jobRoutes];
