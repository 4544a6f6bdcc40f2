/** The public face of src/control/plans: what the rest of src/ may import from it. */
export {
  assertCapability,
  assertWithinLimit,
  hasCapability,
  limitReachedError,
  readEntitlements,
  readQuota,
} from './entitlements.js';
export type { Quota } from './entitlements.js';
export { PLANS, capabilitiesOf } from './plan-table.js';
export type { Plan } from './plan-table.js';
export { assertPublishAllowed, countPublish } from './publishes.js';
export { EntitlementsSchema, OrganizationPathSchema, UsageQuerySchema, UsageSchema } from './schemas.js';
