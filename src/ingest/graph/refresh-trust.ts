import { existsSync } from 'node:fs';
import type { AppServices } from '../../platform/app/index.js';
import { graphDbPath } from '../../platform/storage/index.js';
import { loadWebsiteInfo } from '../../control/records/index.js';
import { refreshSourceTrust } from './apply-contribution.js';

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
