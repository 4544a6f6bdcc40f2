import type { Migration } from '../../sqlite.js';

/** What ingestion accepts: one row per (item type, item id), with its body until tombstoned. */
export const migration: Migration = {
  version: 1,
  name: 'raw items',
  up: (db) => {
    db.exec(`
      CREATE TABLE raw_items (
        raw_content_id TEXT PRIMARY KEY,
        item_type TEXT NOT NULL,
        item_id TEXT NOT NULL,
        checksum TEXT NOT NULL,
        url TEXT NOT NULL,
        canonical_url TEXT,
        language TEXT,
        -- The IngestItem exactly as accepted (JSON); NULL once tombstoned.
        body TEXT,
        state TEXT NOT NULL CHECK (state IN ('pending','processed','failed','tombstoned')),
        tombstone_reason TEXT,
        connector_id TEXT,
        received_at TEXT NOT NULL,
        processed_at TEXT,
        last_error TEXT,
        UNIQUE (item_type, item_id)
      );
      CREATE INDEX raw_items_pending ON raw_items(state) WHERE state = 'pending';
      CREATE INDEX raw_items_by_id ON raw_items(item_id);
    `);
  },
};
