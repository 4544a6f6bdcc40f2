import { accountRoutes, jwksRoutes } from '../control/accounts/index.js';
import { analyticsRoutes } from '../control/analytics/index.js';
import type { RoutePlugin } from '../platform/app/index.js';
import { connectorRoutes } from '../control/connectors/index.js';
import { limitedByAddress, nodeReadRule } from '../control/access/index.js';
import { ingestRoutes } from '../ingest/endpoints/index.js';
import { jobRoutes, websiteRoutes } from '../control/websites/index.js';
import { previewRoutes, knowledgeRoutes } from '../output/knowledge/index.js';
import { mcpRoutes } from '../output/mcp/index.js';
import { nodeFileRoutes } from '../output/node-files/index.js';
import { billingRoutes, organizationsRoutes, planRoutes } from '../control/organizations/index.js';
import { consoleRoutes } from './console-routes.js';
import { openApiRoutes } from './openapi/routes.js';
import { probeRoutes } from './probe-routes.js';
import { publishRoutes } from '../output/publish/index.js';
import { verificationRoutes } from '../control/verification/index.js';
import { waitlistRoutes } from '../control/waitlist/index.js';
import { webhookRoutes } from '../control/webhooks/index.js';

/**
 * Every route group of the daemon, by scope; each group lives in its feature's folder. Add one
 * line per group:
 * - public: no credential (probes, waitlist, node files, the web console's static files);
 *   limitedByAddress puts a group under a rate limit per client address (the general one; node
 *   files and the waitlist have their own; probes and the console's files are never limited);
 * - connector: /v1/ingest/*, signed by a connector (the group verifies it);
 * - management: every other /v1 route; each declares config.access and the management scope
 *   resolves the principal and authorizes it (src/control/access/management-scope.ts).
 */
export const PUBLIC_ROUTES: readonly RoutePlugin[] = [
  probeRoutes,
  consoleRoutes,
  waitlistRoutes,
  limitedByAddress(nodeFileRoutes, nodeReadRule),
  ...[jwksRoutes, billingRoutes, openApiRoutes].map((routes) => limitedByAddress(routes)),
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
  mcpRoutes,
  analyticsRoutes,
  jobRoutes,
];
