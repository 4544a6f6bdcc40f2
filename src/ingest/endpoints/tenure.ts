import type { AppServices } from '../../platform/app/index.js';
import { AppError } from '../../platform/errors/index.js';

/**
 * This daemon's lease token on the website's graph when daemons share a control store (what its
 * journal entries are fenced with); undefined when it is the only daemon. A request reaches here
 * only on the graph's writer (src/ingest/ownership forwards it): a tenure lost since is a retry.
 */
export function tenureOf(services: Pick<AppServices, 'ownership'>, websiteId: string): number | undefined {
  if (!services.ownership) return undefined;
  const token = services.ownership.tokenOf(websiteId);
  if (token === undefined)
    throw new AppError(
      'service.unavailable',
      'Another daemon took over this website while the request was on its way; nothing was stored: retry the request.',
      { retryAfterSeconds: 1 },
    );
  return token;
}
