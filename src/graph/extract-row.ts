import type { WebsiteInfo } from '../website/types.js';
import { IngestItemSchema, type FieldMapping } from '../contract/ingest-item.js';
import { extractItem } from '../extract/index.js';
import type { ItemContribution } from '../extract/contribution.js';

/** A pending raw_items row as content.ingest reads it. */
export interface RawRow { raw_content_id: string; item_type: string; item_id: string; body: string | null; received_at: string }

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
  if (!parsed.success) throw new Error(`stored body is not a valid IngestItem: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
  const contribution = extractItem(parsed.data, site, { receivedAt: row.received_at, mappings });
  if (contribution.itemKey !== itemKey) throw new Error(`contribution item key ${contribution.itemKey} does not match ${itemKey}`);
  return contribution;
}

/** One row's extraction: its contribution, or why the item fails. */
export type ExtractOutcome = { contribution: ItemContribution } | { error: string };

export function extractRows(rows: readonly RawRow[], site: WebsiteInfo, mappings: FieldMapping[]): ExtractOutcome[] {
  return rows.map((row) => {
    try {
      return { contribution: extractRow(row, site, mappings) };
    } catch (error) {
      return { error: describeError(error) };
    }
  });
}
