import type { ResolvedConfig } from '../platform/config/index.js';
import { assembleServices, type AppServices, type NodeOperations } from '../platform/app/index.js';
import type { Logger } from '../platform/log/index.js';
import { refreshGraphTrust } from '../ingest/graph/index.js';
import { eraseWebsiteNode, hasPublishedNode, requestRepublish } from '../output/publish/index.js';

export interface CreateServicesOptions {
  logger?: Logger;
  /** The clock (ms since epoch); default Date.now. Tests pass a fake one. */
  now?: () => number;
  /** See AppServices.passwordCost. */
  passwordCost?: AppServices['passwordCost'];
}

/** The services of one data directory, with the node operations wired to the graph and the publisher. */
export function createServices(config: ResolvedConfig, options: CreateServicesOptions = {}): AppServices {
  return assembleServices(config, { ...options, nodes: nodeOperations });
}

function nodeOperations(services: Omit<AppServices, 'nodes'>): NodeOperations {
  return {
    refreshTrust: (websiteId) => void refreshGraphTrust(services, websiteId),
    requestRepublish: (request) => requestRepublish(services, request),
    hasPublishedNode: (websiteId, erase) => hasPublishedNode(services, websiteId, erase),
    eraseWebsiteNode: (website) =>
      eraseWebsiteNode(services.config.settings, services.controlDb, { ...website, now: services.now }),
  };
}
