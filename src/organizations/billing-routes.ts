import type { RoutePlugin } from '../app/route-plugin.js';
import { AppError } from '../errors/app-error.js';

/**
 * POST /v1/billing/checkout and /v1/billing/portal: billing is not offered (docs/contract.md#plans),
 * so both answer 503 billing.unconfigured; the operator sets plans with `nodectl admin org set-plan`.
 * Public routes (no credential is read): nothing here depends on the caller.
 */
export const billingRoutes: RoutePlugin = async (app) => {
  for (const path of ['/v1/billing/checkout', '/v1/billing/portal']) {
    app.post(path, async () => {
      throw new AppError('billing.unconfigured', 'Billing is not offered on this service: the operator sets each organization\'s plan (`nodectl admin org set-plan`).');
    });
  }
};
