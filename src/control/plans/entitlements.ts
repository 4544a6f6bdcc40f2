import { AppError } from '../../platform/errors/index.js';
import { type Db, DAILY_PUBLISHES, dayOf, monthOf, readCounter } from '../../platform/storage/index.js';
import { type Capability, planEntitlements, type Limit, type PlanEntitlements } from './plan-table.js';

/** One quota of an organization now: what its plan allows and what is in use. */
export interface Quota {
  readonly limit: number;
  readonly used: number;
}

/** An organization's plan, capabilities and every quota (GET /v1/organizations/:id/entitlements). */
export interface OrganizationEntitlements {
  organization_id: string;
  plan: PlanEntitlements['plan'];
  capabilities: readonly Capability[];
  limits: Record<Limit, Quota>;
}

/** The organization's plan, or 404 organization.not_found. */
function planOf(db: Db, organizationId: string): PlanEntitlements {
  const row = db.prepare('SELECT plan FROM organizations WHERE id = ?').get(organizationId) as
    { plan: string } | undefined;
  if (!row) throw new AppError('organization.not_found', `No organization ${organizationId}.`);
  return planEntitlements(row.plan);
}

/**
 * What counts against a quota: websites as they stand, members and unexpired invitations, items accepted this UTC month
 * (the items_ingested counter that ingest adds to and heartbeat reads), versions published this
 * UTC day.
 */
export function readUsed(db: Db, organizationId: string, limit: Limit, nowMs: number): number {
  switch (limit) {
    case 'websites':
      return (
        db.prepare('SELECT COUNT(*) AS n FROM websites WHERE organization_id = ?').get(organizationId) as { n: number }
      ).n;
    case 'members': // a pending invitation holds its seat until it expires
      return (
        db
          .prepare(
            'SELECT (SELECT COUNT(*) FROM members WHERE organization_id = ?) + (SELECT COUNT(*) FROM organization_invitations WHERE organization_id = ? AND expires_at > ?) AS n',
          )
          .get(organizationId, organizationId, nowMs) as { n: number }
      ).n;
    case 'items':
      return readCounter(db, organizationId, 'items_ingested', monthOf(nowMs));
    case 'publishes_per_day':
      return readCounter(db, organizationId, DAILY_PUBLISHES, dayOf(nowMs));
  }
}

/** One quota of the organization: its plan's limit and what is used now. */
export function readQuota(db: Db, organizationId: string, limit: Limit, nowMs: number): Quota {
  return { limit: planOf(db, organizationId).limits[limit], used: readUsed(db, organizationId, limit, nowMs) };
}

/** The organization's plan, capabilities and every quota with its use. */
export function readEntitlements(db: Db, organizationId: string, nowMs: number): OrganizationEntitlements {
  const plan = planOf(db, organizationId);
  const limits = {} as Record<Limit, Quota>;
  for (const limit of Object.keys(plan.limits) as Limit[])
    limits[limit] = { limit: plan.limits[limit], used: readUsed(db, organizationId, limit, nowMs) };
  return { organization_id: organizationId, plan: plan.plan, capabilities: plan.capabilities, limits };
}

const n = (value: number) => value.toLocaleString('en-US');
const LARGER_PLAN = 'or move the organization to a larger plan (`nodectl admin org set-plan`)';

/** What a used-up quota means and what the caller can do about it. */
const EXPLAIN: Record<Limit, (plan: string, quota: Quota) => string> = {
  websites: (plan, q) =>
    `The ${plan} plan allows ${n(q.limit)} website${q.limit === 1 ? '' : 's'} per organization and ${n(q.used)} ${q.used === 1 ? 'exists' : 'exist'}: delete one ${LARGER_PLAN}.`,
  members: (plan, q) =>
    `The ${plan} plan allows ${n(q.limit)} members per organization (pending invitations included) and ${n(q.used)} seats are taken: remove a member or withdraw a pending invitation (GET, DELETE /v1/organizations/:id/invitations) ${LARGER_PLAN}.`,
  items: (plan, q) =>
    `The ${plan} plan allows ${n(q.limit)} accepted items per calendar month (UTC) and ${n(q.used)} were accepted this month: send more next month ${LARGER_PLAN}.`,
  publishes_per_day: (plan, q) =>
    `The ${plan} plan allows ${n(q.limit)} published versions per UTC day and ${n(q.used)} were published today: publish again after midnight UTC ${LARGER_PLAN}.`,
};

/** 403 entitlement.limit_reached with details.limit and details.used (docs/contract.md#plans). */
export function limitReachedError(limit: Limit, plan: string, quota: Quota): AppError {
  return new AppError('entitlement.limit_reached', EXPLAIN[limit](plan, quota), {
    details: { limit: quota.limit, used: quota.used, quota: limit, plan },
  });
}

/**
 * Throws 403 entitlement.limit_reached unless the organization may add `adding` (default 1)
 * more to `limit` now. Call it in the same transaction as the write it guards, so two requests
 * cannot both take the last unit.
 */
export function assertWithinLimit(
  db: Db,
  organizationId: string,
  limit: Limit,
  options: { nowMs?: number; adding?: number } = {},
): void {
  const plan = planOf(db, organizationId);
  const quota = { limit: plan.limits[limit], used: readUsed(db, organizationId, limit, options.nowMs ?? Date.now()) };
  if (quota.used + (options.adding ?? 1) > quota.limit) throw limitReachedError(limit, plan.plan, quota);
}

/** Whether the organization's plan carries `capability`. */
export function hasCapability(db: Db, organizationId: string, capability: Capability): boolean {
  return planOf(db, organizationId).capabilities.includes(capability);
}

/** Throws 403 entitlement.capability_missing unless the organization's plan carries `capability`. */
export function assertCapability(db: Db, organizationId: string, capability: Capability): void {
  const plan = planOf(db, organizationId);
  if (plan.capabilities.includes(capability)) return;
  throw new AppError(
    'entitlement.capability_missing',
    `The ${plan.plan} plan lacks ${capability}: move the organization to a plan that carries it (docs/contract.md#plans).`,
    {
      details: { capability, plan: plan.plan },
    },
  );
}
