import { accountRoutes, jwksRoutes } from '../control/accounts/routes.js';
import { analyticsRoutes } from '../control/analytics/routes.js';
import type { RoutePlugin } from '../platform/app/route-plugin.js';
import { connectorRoutes } from '../control/connectors/routes.js';
import { limitedByAddress } from '../control/access/request-limits.js';
import { ingestRoutes } from '../ingest/endpoints/routes.js';
import { jobRoutes } from '../control/websites/job-routes.js';
import { previewRoutes } from '../output/knowledge/preview-routes.js';
import { knowledgeRoutes } from '../output/knowledge/routes.js';
import { nodeFileRoutes } from '../output/node-files/routes.js';
import { billingRoutes, organizationsRoutes } from '../control/organizations/routes.js';
import { planRoutes } from '../control/plans/routes.js';
import { openApiRoutes } from './openapi/routes.js';
import { probeRoutes } from './probe-routes.js';
import { publishRoutes } from '../output/publish/routes.js';
import { verificationRoutes } from '../control/verification/routes.js';
import { waitlistRoutes } from '../control/waitlist/routes.js';
import { webhookRoutes } from '../control/webhooks/routes.js';
import { websiteRoutes } from '../control/websites/routes.js';

/**
 * Every route group of the daemon, by scope; each group lives in its feature's folder. Add one
 * line per group:
 * - public: no credential (probes, waitlist, node files); limitedByAddress puts a group under the
 *   general rate limit per client address (probes are never limited; the waitlist has its own);
 * - connector: /v1/ingest/*, signed by a connector (the group verifies it);
 * - management: every other /v1 route; each declares config.access and the management scope
 *   resolves the principal and authorizes it (src/control/access/management-scope.ts).
 */
export const PUBLIC_ROUTES: readonly RoutePlugin[] = [
  probeRoutes,
  waitlistRoutes,
  ...[nodeFileRoutes, jwksRoutes, billingRoutes, openApiRoutes].map(limitedByAddress),
];
export const CONNECTOR_ROUTES: readonly RoutePlugin[] = [ingestRoutes];
export const MANAGEMENT_ROUTES: readonly RoutePlugin[] = [
  accountRoutes,
  publishRoutes,
  organizationsRoutes,
  planRoutes,
  webhookRoutes,
  websiteRoutes,
  verificationRoutes,
  connectorRoutes,
  knowledgeRoutes,
  previewRoutes,
  analyticsRoutes,
  jobRoutes,
];
