import { z } from 'zod';
import { PLANS, type Capability, LIMITS, PLAN_TABLE } from './plan-table.js';
import { USAGE_METRICS } from '../../platform/storage/index.js';

/**
 * The plan routes' path, query and answers (docs/contract.md#plans): they validate the request and
 * describe the routes in the OpenAPI document.
 */

export const OrganizationPathSchema = z.object({ id: z.string().describe('The organization id (org_...)') });

export const UsageQuerySchema = z.strictObject({
  period: z
    .string()
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'must be a calendar month, YYYY-MM')
    .optional()
    .describe('The calendar month (UTC), YYYY-MM; default the current one'),
});

/** Every capability some plan carries, sorted. */
const CAPABILITIES = [...new Set(Object.values(PLAN_TABLE).flatMap((plan) => plan.capabilities))].sort() as [
  Capability,
  ...Capability[],
];

const QuotaSchema = z.object({
  limit: z.number().int().describe('What the plan allows'),
  used: z.number().int().describe('What is in use now'),
});

/** GET /v1/organizations/:id/entitlements (entitlements.ts OrganizationEntitlements). */
export const EntitlementsSchema = z.object({
  organization_id: z.string(),
  plan: z.enum(PLANS),
  capabilities: z.array(z.enum(CAPABILITIES)).describe("The plan's capabilities, sorted"),
  limits: z
    .object(
      Object.fromEntries(LIMITS.map((limit) => [limit, QuotaSchema])) as Record<
        (typeof LIMITS)[number],
        typeof QuotaSchema
      >,
    )
    .describe(
      'Each quota: websites and members at any time (pending invitations hold a seat), items accepted this calendar month (UTC), versions published this UTC day',
    ),
});

/** GET /v1/organizations/:id/usage. */
export const UsageSchema = z.object({
  organization_id: z.string(),
  period: z.string().describe('The calendar month counted (UTC), YYYY-MM'),
  usage: z
    .object(
      Object.fromEntries(USAGE_METRICS.map((metric) => [metric, z.number().int()])) as Record<
        (typeof USAGE_METRICS)[number],
        z.ZodNumber
      >,
    )
    .describe('Each usage counter of the month, 0 when nothing was counted'),
});
