import { z } from 'zod';
import { AGENTS } from './agents.js';
import { TOP_FILES } from './read-analytics.js';

/** The analytics route's path and answer (read-analytics.ts WebsiteAnalytics); the query is AnalyticsRangeSchema (analytics-range.ts). */

export const WebsitePathSchema = z.object({ id: z.string().describe('The website id (web_...)') });

export const AnalyticsDaySchema = z.object({
  date: z.string().describe('The UTC day, YYYY-MM-DD'),
  node_reads: z.number().int().describe('Node files served that day'),
  reads_by_agent: z
    .object(
      Object.fromEntries(AGENTS.map((agent) => [agent, z.number().int()])) as Record<
        (typeof AGENTS)[number],
        z.ZodNumber
      >,
    )
    .describe('node_reads by who read, told from the User-Agent (other: browsers, scripts and unknown agents)'),
  items_ingested: z.number().int().describe('Items accepted by ingest that day'),
  published_versions: z.number().int().describe('Node versions published that day'),
});

export const WebsiteAnalyticsSchema = z.object({
  website_id: z.string(),
  from: z.string().describe('The first day of the range (UTC), YYYY-MM-DD'),
  to: z.string().describe('The last day of the range (UTC), YYYY-MM-DD'),
  days: z
    .array(AnalyticsDaySchema)
    .describe('One entry per day of the range, oldest first; days without activity at zero'),
  top_files: z
    .array(z.object({ file: z.string().describe('The node file path'), reads: z.number().int() }))
    .describe(`The ${TOP_FILES} most read node files over the range, most first (then by name)`),
});
