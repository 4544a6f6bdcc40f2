import type { Migration } from '../../sqlite.js';

/**
 * Items an ingest request acknowledged and no content.ingest job has moved into the graph's
 * raw_items yet: one row per accepted item version, numbered in the order accepted (seq,
 * AUTOINCREMENT: never reused, so it orders versions across moves too; raw_items.accepted_seq
 * keeps the number of the version moved). A (type, id) pushed twice before its move has two rows.
 */
export const migration: Migration = {
  version: 1,
  name: 'inbox items',
  up: (db) => {
    db.exec(`
      CREATE TABLE inbox_items (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        raw_content_id TEXT NOT NULL UNIQUE,
        item_type TEXT NOT NULL,
        item_id TEXT NOT NULL,
        checksum TEXT NOT NULL,
        url TEXT NOT NULL,
        canonical_url TEXT,
        language TEXT NOT NULL,
        -- The IngestItem exactly as accepted (JSON).
        body TEXT NOT NULL,
        connector_id TEXT,
        received_at TEXT NOT NULL
      );
      CREATE INDEX inbox_items_by_item ON inbox_items(item_id, item_type);
    `);
  },
};
