import type { WebsiteInfo } from '../../control/records/website-info.js';
import { IngestItemSchema, type FieldMapping } from '../../platform/contract/ingest-item.js';
import { extractItem } from '../extract/index.js';
import type { ItemContribution } from '../extract/contribution.js';
import {
  BatchIds,
  contributionRows,
  withItemColumns,
  withoutItemColumns,
  type ContributionRows,
} from './contribution-rows.js';

/** A pending raw_items row as content.ingest reads it. */
export interface RawRow {
  raw_content_id: string;
  item_type: string;
  item_id: string;
  body: string | null;
  received_at: string;
}

/** An error as last_error stores it: the message, at most 1,000 characters. */
export function describeError(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > 1000 ? text.slice(0, 1000) + '...' : text;
}

/** Parses a raw row's accepted IngestItem and extracts its contribution; throws what makes the item fail. */
export function extractRow(row: RawRow, site: WebsiteInfo, mappings: FieldMapping[]): ItemContribution {
  const itemKey = `${row.item_type}:${row.item_id}`;
  if (row.body === null) throw new Error('raw item has no body');
  const parsed = IngestItemSchema.safeParse(JSON.parse(row.body));
  if (!parsed.success)
    throw new Error(
      `stored body is not a valid IngestItem: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`,
    );
  const contribution = extractItem(parsed.data, site, { receivedAt: row.received_at, mappings });
  if (contribution.itemKey !== itemKey)
    throw new Error(`contribution item key ${contribution.itemKey} does not match ${itemKey}`);
  return contribution;
}

/** One raw row's extraction: the rows its contribution writes, or why the item fails. */
export type ExtractOutcome = { rows: ContributionRows } | { error: string };

/** Extracts raw rows and turns each contribution into its rows (what a batch's write needs, plain data). */
export function extractRows(rows: readonly RawRow[], site: WebsiteInfo, mappings: FieldMapping[]): ExtractOutcome[] {
  const ids = new BatchIds(site.websiteId);
  return rows.map((row) => extractOutcome(row, site, mappings, ids));
}

/**
 * extractRows(rows, ...) as JSON for another thread, each item's rows without the columns they
 * repeat from the item (withoutItemColumns; readExtractedRows puts them back). Each outcome is
 * serialised as soon as it is made: its objects then die young instead of being copied by every
 * scavenge until the batch ends (garbage collection was about a fifth of the extraction worker's
 * time; this took a quarter off its scavenges, docs/graph.md "Throughput").
 */
export function extractRowsJson(rows: readonly RawRow[], site: WebsiteInfo, mappings: FieldMapping[]): string {
  const ids = new BatchIds(site.websiteId);
  return (
    '[' +
    rows
      .map((row) => {
        const outcome = extractOutcome(row, site, mappings, ids);
        if ('rows' in outcome) withoutItemColumns(outcome.rows);
        return JSON.stringify(outcome);
      })
      .join(',') +
    ']'
  );
}

/** The outcomes of extractRowsJson's text, parsed, made what extractRows returns, in place. */
export function readExtractedRows(outcomes: ExtractOutcome[]): ExtractOutcome[] {
  for (const outcome of outcomes) if ('rows' in outcome) withItemColumns(outcome.rows);
  return outcomes;
}

function extractOutcome(row: RawRow, site: WebsiteInfo, mappings: FieldMapping[], ids: BatchIds): ExtractOutcome {
  try {
    return { rows: contributionRows(site, extractRow(row, site, mappings), ids) };
  } catch (error) {
    return { error: describeError(error) };
  }
}
