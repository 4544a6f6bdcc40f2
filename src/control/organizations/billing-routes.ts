import type { RoutePlugin } from '../../platform/app/route-plugin.js';
import { AppError } from '../../platform/errors/app-error.js';
import { BillingUnconfiguredSchema } from './schemas.js';

/**
 * POST /v1/billing/checkout and /v1/billing/portal: billing is not offered (docs/contract.md#plans),
 * so both answer 503 billing.unconfigured; the operator sets plans with `nodectl admin org set-plan`.
 * Public routes (no credential is read): nothing here depends on the caller. The group is under the
 * general limit per client address (limitedByAddress in src/daemon/route-plugins.ts), which
 * src/daemon/openapi/route-errors.ts cannot see: hence quota.rate_limited in config.errors.
 */
export const billingRoutes: RoutePlugin = async (app) => {
  const routes = [
    {
      path: '/v1/billing/checkout',
      summary: 'Start a checkout for a paid plan: not offered on this service (503 billing.unconfigured)',
    },
    {
      path: '/v1/billing/portal',
      summary: 'Open the billing portal: not offered on this service (503 billing.unconfigured)',
    },
  ];
  for (const { path, summary } of routes) {
    app.post(
      path,
      {
        config: { errors: ['billing.unconfigured', 'quota.rate_limited'] },
        schema: { summary, tags: ['billing'], response: { 503: BillingUnconfiguredSchema } },
      },
      async () => {
        throw new AppError(
          'billing.unconfigured',
          "Billing is not offered on this service: the operator sets each organization's plan (`nodectl admin org set-plan`).",
        );
      },
    );
  }
};
