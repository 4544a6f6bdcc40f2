import type { Migration } from '../../sqlite.js';

/** Idempotency records name the process that holds them in flight. */
export const migration: Migration = {
  version: 3,
  name: 'idempotency owner',
  up: (db) => {
    // The process that holds an in-flight record (<host>:<pid>:<start ulid>), so a record left by
    // a killed daemon is known abandoned at once instead of after its lease.
    db.exec('ALTER TABLE idempotency ADD COLUMN owner TEXT');
  },
};
