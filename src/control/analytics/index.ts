/** The public face of src/control/analytics: what the rest of src/ may import from it. */
export { classifyAgent } from './agents.js';
export { analyticsAggregateJob } from './aggregate-job.js';
export { resolveAnalyticsRange } from './analytics-range.js';
export type { AnalyticsRangeSchema } from './analytics-range.js';
export { addWebsiteEvent } from './event-counts.js';
export { METRICS } from './metric-names.js';
export { readWebsiteAnalytics } from './read-analytics.js';
export type { WebsiteAnalytics } from './read-analytics.js';
export { createReadCounter } from './read-counter.js';
export { analyticsRoutes } from './routes.js';
export type { WebsiteAnalyticsSchema } from './schemas.js';
