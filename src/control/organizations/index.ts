/** The public face of src/control/organizations: what the rest of src/ may import from it. */
export { orgEraseJob } from './erase-job.js';
export { deleteGraphFiles } from './erase.js';
export { planRoutes } from './plan-routes.js';
export { authorizedOrganization } from './request-caller.js';
export { billingRoutes, organizationsRoutes } from './routes.js';
export type { OrganizationSchema } from './schemas.js';
export { setPlanAsOperator } from './set-plan.js';
export { orgTransferExecuteJob } from './transfer-execute-job.js';
