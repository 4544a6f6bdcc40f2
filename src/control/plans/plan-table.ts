import { capabilitiesOf, PLANS, type Capability, type Plan } from '../records/website-info.js';

/** The quotas a plan sets (docs/contract.md#plans). */
export const LIMITS = ['websites', 'items', 'publishes_per_day', 'members'] as const;
export type Limit = (typeof LIMITS)[number];

/** One plan: its quotas and its capabilities (sorted, as manifest.capabilities lists them). */
export interface PlanEntitlements {
  readonly plan: Plan;
  /** websites and members: at any time; items: accepted per calendar month (UTC); publishes: per UTC day. */
  readonly limits: Readonly<Record<Limit, number>>;
  readonly capabilities: readonly Capability[];
}

/**
 * The plan table of docs/contract.md#plans as data: every check and the entitlements route read
 * it, so a quota changes in one place. Capabilities come from src/control/records/website-info.ts, which the
 * compiler reads to gate trust.json, openapi.json and embeddings-manifest.json.
 */
const LIMITS_BY_PLAN: Readonly<Record<Plan, Readonly<Record<Limit, number>>>> = {
  free: { websites: 1, items: 1_000, publishes_per_day: 10, members: 3 },
  pro: { websites: 5, items: 50_000, publishes_per_day: 100, members: 10 },
  business: { websites: 50, items: 1_000_000, publishes_per_day: 1_000, members: 100 },
};

export const PLAN_TABLE: Readonly<Record<Plan, PlanEntitlements>> = Object.freeze(
  Object.fromEntries(
    PLANS.map((plan) => [
      plan,
      Object.freeze({ plan, limits: LIMITS_BY_PLAN[plan], capabilities: Object.freeze(capabilitiesOf(plan)) }),
    ]),
  ) as Record<Plan, PlanEntitlements>,
);

/** The entitlements of a plan name read from the database; an unknown name counts as free (the most restrictive). */
export function planEntitlements(plan: string): PlanEntitlements {
  return (PLANS as readonly string[]).includes(plan) ? PLAN_TABLE[plan as Plan] : PLAN_TABLE.free;
}
