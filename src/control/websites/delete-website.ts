import type { AppServices } from '../../platform/app/index.js';
import { AppError } from '../../platform/errors/index.js';
import { deleteGraphFiles } from '../organizations/index.js';
import type { WebsiteRow } from './website-store.js';

/**
 * DELETE /v1/websites/:id (docs/websites.md "Routes"): the website and everything of it, for
 * good. (1) Its published node goes from every target: the pointer, every version, the
 * content-addressed objects and the public alias (a publish running now makes this 409
 * publish.conflict, retryable, before anything is deleted); (2) one transaction deletes its rows
 * (aliases, verification, connectors, mappings, webhooks and events go with it) and writes the
 * audit row `audit`; (3) its graph file is deleted. Nothing is revoked before (2), so a failure
 * at (1) leaves the website whole and the call can be made again.
 */
export async function deleteWebsite(
  services: Pick<AppServices, 'controlDb' | 'graphs' | 'layout' | 'nodes'>,
  website: WebsiteRow,
  audit: () => void,
): Promise<void> {
  const db = services.controlDb;
  if (db.prepare('SELECT 1 FROM organization_erasures WHERE organization_id = ?').get(website.organizationId)) {
    throw new AppError(
      'privacy.erasure_in_progress',
      'An erasure of this organization is running; it deletes this website too.',
    );
  }
  await services.nodes.eraseWebsiteNode({ websiteId: website.id, domain: website.domain });
  db.transaction(() => {
    db.prepare('DELETE FROM publish_locks WHERE website_id = ?').run(website.id);
    db.prepare('DELETE FROM website_leases WHERE website_id = ?').run(website.id);
    db.prepare('DELETE FROM ingest_journal WHERE website_id = ?').run(website.id);
    db.prepare('DELETE FROM graph_snapshots WHERE website_id = ?').run(website.id);
    db.prepare('DELETE FROM analytics_events WHERE website_id = ?').run(website.id);
    db.prepare('DELETE FROM websites WHERE id = ?').run(website.id);
    audit();
  }).immediate();
  deleteGraphFiles(services, website.id);
}
