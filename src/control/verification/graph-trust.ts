import { existsSync } from 'node:fs';
import type { AppServices } from '../../platform/app/services.js';
import { refreshSourceTrust } from '../../ingest/graph/index.js';
import { graphDbPath } from '../../platform/storage/data-dir.js';
import { loadWebsiteInfo } from '../records/load-website.js';
import type { VerificationDeps } from './deps.js';

export type TrustServices = Pick<AppServices, 'controlDb' | 'graphs' | 'layout'>;

/**
 * Sets the trust of every source in the website's graph to its verification's trust_score,
 * after the state or the method of its own domain changed, so the next compile exports sources
 * with the trust the website has now (trust.json reads the state itself). A website with no
 * graph yet has nothing to change: no file is created.
 */
export function refreshGraphTrust(services: TrustServices, websiteId: string): number {
  if (!existsSync(graphDbPath(services.layout, websiteId))) return 0;
  const site = loadWebsiteInfo(services.controlDb, websiteId);
  if (!site) return 0;
  const graph = services.graphs.get(websiteId);
  return graph.transaction(() => refreshSourceTrust(graph, site)).immediate();
}

/** The verification operations wired to the daemon: a change of a website's trust refreshes its graph's source trust. */
export function verificationDeps(services: TrustServices & Pick<AppServices, 'now' | 'logger'>): VerificationDeps {
  return {
    controlDb: services.controlDb,
    now: services.now,
    onTrustChanged: (websiteId) => {
      try {
        refreshGraphTrust(services, websiteId);
      } catch (error) {
        // The next content.ingest run sets the same trust; the verification itself is committed.
        services.logger.warn(
          { err: error, websiteId },
          "the graph's source trust could not be refreshed after a verification change",
        );
      }
    },
  };
}
