import type { Migration } from '../../sqlite.js';

/**
 * Failed second-factor checks per user (TOTP or recovery code, on every route that takes one):
 * a few in a row lock the factor for a while (docs/auth.md "Two-factor sign-in"). One row per user
 * who ever failed a check; a success resets `failures`.
 */
export const migration: Migration = {
  version: 9,
  name: 'factor lockouts',
  up: (db) => {
    db.exec(`
      CREATE TABLE factor_lockouts (
        user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
        failures INTEGER NOT NULL DEFAULT 0,
        locked_until INTEGER,
        updated_at INTEGER NOT NULL
      );
    `);
  },
};
