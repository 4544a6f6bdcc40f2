import type { Db } from '../storage/sqlite.js';
import type { WebsiteInfo } from '../website/types.js';
import { IngestItemSchema, type FieldMapping } from '../contract/ingest-item.js';
import { extractItem } from '../extract/index.js';
import { applyContribution, refreshSourceTrust } from './apply-contribution.js';
import { emptySearchTouched, refreshSearchDocs } from './search-docs.js';
import { graphStatements } from './statements.js';

export interface ProcessRawItemsOptions {
  /** The website's field mappings, passed to the extractor. Default none. */
  mappings?: FieldMapping[];
  /** RFC 3339 UTC time written to processed_at. */
  now: string;
  /** Items per write transaction. Default 250. */
  batchSize?: number;
}

export interface ProcessRawItemsResult {
  processed: number;
  failed: number;
  /** Ids not found in state 'pending' (superseded by a newer version, already done, or tombstoned). */
  skipped: number;
  failures: Array<{ rawContentId: string; itemKey: string; error: string }>;
  /** Items extracted with warnings (candidates left out); item_contributions.warnings keeps them all. */
  warned: number;
  /** The warnings of the first WARNED_LISTED such items, for the job's log. */
  warnings: Array<{ itemKey: string; warnings: string[] }>;
}

const WARNED_LISTED = 20;

interface RawRow { raw_content_id: string; item_type: string; item_id: string; body: string | null; received_at: string }

function describe(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > 1000 ? text.slice(0, 1000) + '...' : text;
}

/**
 * The content.ingest work: for each pending raw item, parse the accepted IngestItem, extract its
 * contribution and merge it into the graph, then mark the row processed. A bad item (unreadable
 * body, extractor or store error) is marked failed with last_error and its previous contribution
 * is kept; it never stops the batch. Items are written in batches, one transaction each, and
 * every item in a savepoint so a failure rolls back only its own rows.
 */
export function processRawItems(db: Db, site: WebsiteInfo, rawContentIds: readonly string[], options: ProcessRawItemsOptions): ProcessRawItemsResult {
  const s = graphStatements(db);
  const result: ProcessRawItemsResult = { processed: 0, failed: 0, skipped: 0, failures: [], warned: 0, warnings: [] };
  const batchSize = Math.max(1, options.batchSize ?? 250);
  const mappings = options.mappings ?? [];
  const ids = [...new Set(rawContentIds)];
  if (ids.length > 0) db.transaction(() => refreshSourceTrust(db, site)).immediate();
  for (let start = 0; start < ids.length; start += batchSize) {
    const batch = ids.slice(start, start + batchSize);
    db.transaction(() => {
      // The batch's records are re-indexed once, before it commits (src/graph/search-docs.ts).
      const search = emptySearchTouched();
      for (const rawContentId of batch) {
        const row = s.rawByContentId.get(rawContentId) as RawRow | undefined;
        if (!row) {
          result.skipped++;
          continue;
        }
        const itemKey = `${row.item_type}:${row.item_id}`;
        try {
          if (row.body === null) throw new Error('raw item has no body');
          const parsed = IngestItemSchema.safeParse(JSON.parse(row.body));
          if (!parsed.success) throw new Error(`stored body is not a valid IngestItem: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
          const contribution = extractItem(parsed.data, site, { receivedAt: row.received_at, mappings });
          if (contribution.itemKey !== itemKey) throw new Error(`contribution item key ${contribution.itemKey} does not match ${itemKey}`);
          applyContribution(db, site, contribution, search);
          s.markProcessed.run(options.now, rawContentId);
          result.processed++;
          if (contribution.warnings.length > 0) {
            result.warned++;
            if (result.warnings.length < WARNED_LISTED) result.warnings.push({ itemKey, warnings: contribution.warnings });
          }
        } catch (error) {
          const message = describe(error);
          s.markFailed.run(options.now, message, rawContentId);
          result.failed++;
          result.failures.push({ rawContentId, itemKey, error: message });
        }
      }
      refreshSearchDocs(db, search);
    }).immediate();
  }
  return result;
}
