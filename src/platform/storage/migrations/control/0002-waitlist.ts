import type { Migration } from '../../sqlite.js';

/** The public waitlist and the fixed-window rate-limit counters that guard it. */
export const migration: Migration = {
  version: 2,
  name: 'waitlist',
  up: (db) => {
    db.exec(`
      CREATE TABLE waitlist (
        email TEXT PRIMARY KEY COLLATE NOCASE,
        source TEXT,
        consent_at TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE TABLE rate_limits (
        bucket TEXT NOT NULL,
        window_start INTEGER NOT NULL,
        count INTEGER NOT NULL,
        PRIMARY KEY (bucket, window_start)
      ) WITHOUT ROWID;
    `);
  },
};
