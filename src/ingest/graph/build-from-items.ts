import type { IngestItem } from '../../platform/contract/ingest-item.js';
import { IngestItemSchema, type FieldMapping } from '../../platform/contract/ingest-item.js';
import { writeRawItems } from './raw-items.js';
import type { WebsiteInfo } from '../../control/records/website-info.js';
import { openDatabase, type Db } from '../../platform/storage/sqlite.js';
import { applyEditorialEntries, type EditorialEntry } from './editorial-entries.js';
import { processRawItems, type ProcessRawItemsResult } from './process-raw-items.js';
import { SqliteGraphReader } from './reader.js';
import { GRAPH_DB_OPTIONS } from './schema.js';
import type { GraphReader } from './types.js';

export interface BuildGraphOptions {
  /** Graph database file to write; default an in-memory database. */
  file?: string;
  /** RFC 3339 UTC: received_at of every item (and processed_at); fixes lastSeenAt of items without updated_at. */
  receivedAt: string;
  /** Field mappings as POST /v1/ingest/schema would hold them. Default none. */
  mappings?: FieldMapping[];
  /** Editorial state applied after ingestion (fixtures/<name>/editorial.jsonl, see parseEditorialJsonl). */
  editorial?: EditorialEntry[];
}

export interface BuiltGraph {
  db: Db;
  reader: GraphReader;
  result: ProcessRawItemsResult;
  close(): void;
}

/**
 * Builds a website graph from a fixture's items through the daemon's own path: raw_items rows
 * written by the ingest writer, then processRawItems, so a fixture and a served website with the
 * same items produce the same graph. An invalid item throws (the daemon would reject it).
 */
export function buildGraphFromItems(
  items: readonly IngestItem[],
  site: WebsiteInfo,
  options: BuildGraphOptions,
): BuiltGraph {
  const valid: IngestItem[] = items.map((item, index) => {
    const parsed = IngestItemSchema.safeParse(item);
    if (!parsed.success)
      throw new Error(
        `item ${index} (${String((item as { id?: unknown }).id)}) is invalid: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
      );
    return parsed.data;
  });
  const db = openDatabase(options.file ?? ':memory:', GRAPH_DB_OPTIONS);
  try {
    const outcomes = writeRawItems(db, valid, (i) => JSON.stringify(valid[i]), {
      connectorId: 'fixture',
      defaultLanguage: site.defaultLanguage,
      receivedAt: options.receivedAt,
    });
    const ids = outcomes.flatMap((o) => (o.status === 'accepted' ? [o.rawContentId] : []));
    const result = processRawItems(db, site, ids, { mappings: options.mappings ?? [], now: options.receivedAt });
    if (options.editorial && options.editorial.length > 0) applyEditorialEntries(db, options.editorial);
    return { db, reader: new SqliteGraphReader(db), result, close: () => db.open && db.close() };
  } catch (error) {
    db.close();
    throw error;
  }
}
