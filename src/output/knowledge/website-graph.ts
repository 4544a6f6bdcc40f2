import { existsSync } from 'node:fs';
import type { AppServices } from '../../platform/app/index.js';
import { graphDbPath, type Db } from '../../platform/storage/index.js';

/**
 * The website's graph database when one exists: a read never creates one (GraphDbPool.get would
 * make an empty file), so a website with nothing ingested yet reads as empty.
 */
export function existingGraph(services: Pick<AppServices, 'layout' | 'graphs'>, websiteId: string): Db | undefined {
  if (!existsSync(graphDbPath(services.layout, websiteId))) return undefined;
  return services.graphs.get(websiteId);
}
