import type { Migration } from '../../sqlite.js';

/**
 * Which daemon writes a website's graph (issue 41 item 3; WebsiteLeases in website-leases.ts): one
 * row per website ever leased, kept after a release so `token` keeps growing across owners. No
 * foreign key to websites: the PostgreSQL table is the same and has no websites table beside it yet.
 */
export const migration: Migration = {
  version: 13,
  name: 'website leases',
  up: (db) => {
    db.exec(`
      CREATE TABLE website_leases (
        website_id TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        token INTEGER NOT NULL,
        acquired_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      );
      CREATE INDEX website_leases_by_owner ON website_leases (owner, expires_at);
    `);
  },
};
