import type { Migration } from '../../sqlite.js';
import { migration as inboxItems } from './0001-inbox-items.js';

/**
 * The schema of graphs/<websiteId>.inbox.sqlite (src/ingest/graph/inbox.ts), oldest first, as
 * GRAPH_MIGRATIONS (./graph/index.ts) says how to add one. Forward-only.
 */
export const INBOX_MIGRATIONS: readonly Migration[] = [inboxItems];
