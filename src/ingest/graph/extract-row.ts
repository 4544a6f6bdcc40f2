import type { WebsiteInfo } from '../../control/records/index.js';
import { IngestItemSchema, type FieldMapping } from '../../platform/contract/index.js';
import { extractItem, type ItemContribution } from '../extract/index.js';
import {
  BatchIds,
  contributionRows,
  withItemColumns,
  withoutItemColumns,
  type ContributionRows,
} from './contribution-rows.js';
import { itemErrorCodeOf, ItemRefusedError, type ItemErrorCode } from './item-errors.js';

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
  if (row.body === null)
    throw new ItemRefusedError('item.body_missing', 'raw item has no body stored; push the item again');
  let body: unknown;
  try {
    body = JSON.parse(row.body);
  } catch (error) {
    throw new ItemRefusedError(
      'item.body_invalid',
      `stored body is not JSON (${describeError(error)}); push the item again`,
    );
  }
  const parsed = IngestItemSchema.safeParse(body);
  if (!parsed.success)
    throw new ItemRefusedError(
      'item.body_invalid',
      `stored body is not a valid IngestItem: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}; push the item again with these fields fixed`,
    );
  const contribution = extractItem(parsed.data, site, { receivedAt: row.received_at, mappings });
  if (contribution.itemKey !== itemKey)
    throw new ItemRefusedError(
      'item.key_mismatch',
      `contribution item key ${contribution.itemKey} does not match ${itemKey}; report this as a bug`,
    );
  return contribution;
}

/** One raw row's extraction: the rows its contribution writes, or why the item fails. */
export type ExtractOutcome = { rows: ContributionRows } | { error: string; code: ItemErrorCode };

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
    return { error: describeError(error), code: itemErrorCodeOf(error) };
  }
}
