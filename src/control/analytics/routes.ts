import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { RoutePlugin } from '../../platform/app/route-plugin.js';
import { authorizedWebsite } from '../access/management-scope.js';
import type { RouteAccess } from '../access/route-access.js';
import { sendData } from '../../platform/http/envelope.js';
import { dataEnvelope } from '../../platform/http/route-docs.js';
import { AnalyticsRangeSchema, resolveAnalyticsRange } from './analytics-range.js';
import { readWebsiteAnalytics } from './read-analytics.js';
import { WebsiteAnalyticsSchema, WebsitePathSchema } from './schemas.js';

const VIEWER_READ: RouteAccess = { minRole: 'viewer', access: 'read', resource: { kind: 'website', param: 'id' } };

/**
 * GET /v1/websites/:id/analytics?from&to (viewer; docs/contract.md#management-api): per UTC day
 * node reads (in total and by agent), items ingested and versions published, and the most read
 * files, from the daily rollups analytics.aggregate makes (docs/knowledge.md "Analytics").
 * Default: the last 30 days up to today; at most 366 days.
 */
export const analyticsRoutes: RoutePlugin = async (app, { services }) => {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/v1/websites/:id/analytics',
    {
      config: { access: VIEWER_READ },
      schema: {
        summary:
          'Node reads (in total and by agent), items ingested and versions published per UTC day, and the most read files',
        tags: ['analytics'],
        params: WebsitePathSchema,
        querystring: AnalyticsRangeSchema,
        response: {
          200: dataEnvelope(WebsiteAnalyticsSchema).describe('The days of the range and the most read files'),
        },
      },
    },
    async (request, reply) => {
      const website = authorizedWebsite(request);
      // The schema checked each date; the range rules (defaults, from before to, at most 366 days) are shared with `nodectl analytics`.
      const { from, to } = resolveAnalyticsRange(request.query, services.now());
      return sendData(request, reply, readWebsiteAnalytics(services.controlDb, website.id, from, to));
    },
  );
};
