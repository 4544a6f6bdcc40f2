import { z } from 'zod';
import type { RoutePlugin } from '../app/route-plugin.js';
import { authorizedWebsite } from '../auth/management-scope.js';
import type { RouteAccess } from '../auth/route-access.js';
import { AppError, fieldProblemsFromZod } from '../errors/app-error.js';
import { sendData } from '../http/envelope.js';
import { readWebsiteAnalytics } from './read-analytics.js';

const VIEWER_READ: RouteAccess = { minRole: 'viewer', access: 'read', resource: { kind: 'website', param: 'id' } };

/** Days answered when the query gives no range, ending today (UTC). */
export const DEFAULT_DAYS = 30;
/** The longest range answered, in days. */
export const MAX_DAYS = 366;
const DAY_MS = 86_400_000;

/** 2026-02-30 parses (as March 2nd): a date is real when it prints back the same. */
function isCalendarDate(text: string): boolean {
  const ms = Date.parse(`${text}T00:00:00Z`);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === text;
}

const DateSchema = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD').refine(isCalendarDate, 'must be a real calendar date');
const AnalyticsQuerySchema = z.object({ from: DateSchema.optional(), to: DateSchema.optional() });

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * GET /v1/websites/:id/analytics?from&to (viewer; docs/contract.md#management-api): per UTC day
 * node reads (in total and by agent), items ingested and versions published, and the most read
 * files, from the daily rollups analytics.aggregate makes (docs/knowledge.md "Analytics").
 * Default: the last 30 days up to today; at most 366 days.
 */
export const analyticsRoutes: RoutePlugin = async (app, { services }) => {
  app.get<{ Params: { id: string } }>('/v1/websites/:id/analytics', { config: { access: VIEWER_READ } }, async (request, reply) => {
    const website = authorizedWebsite(request);
    const parsed = AnalyticsQuerySchema.safeParse(request.query ?? {});
    if (!parsed.success) throw new AppError('validation.failed', 'The query is not valid; see details.fields.', { details: { fields: fieldProblemsFromZod(parsed.error.issues) } });
    const to = parsed.data.to ?? (parsed.data.from ? dayOf(Math.min(Date.parse(`${parsed.data.from}T00:00:00Z`) + (DEFAULT_DAYS - 1) * DAY_MS, services.now())) : dayOf(services.now()));
    const from = parsed.data.from ?? dayOf(Date.parse(`${to}T00:00:00Z`) - (DEFAULT_DAYS - 1) * DAY_MS);
    const span = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS + 1;
    if (span < 1) throw new AppError('validation.failed', `from (${from}) is after to (${to}).`, { details: { fields: [{ path: 'from', message: 'must not be after to' }] } });
    if (span > MAX_DAYS) throw new AppError('validation.failed', `The range holds ${span} days; ask for at most ${MAX_DAYS}.`, { details: { fields: [{ path: 'to', message: `must be at most ${MAX_DAYS - 1} days after from` }] } });
    return sendData(request, reply, readWebsiteAnalytics(services.controlDb, website.id, from, to));
  });
};
