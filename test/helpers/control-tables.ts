import { isPostgresDb, type Db } from '../../src/platform/storage/index.js';

/**
 * The tables of a control database, by name in byte order, on either store: control.sqlite's
 * from sqlite_master, PostgreSQL's from information_schema (its schema-version table aside).
 */
export function controlTableNames(db: Db): string[] {
  return db
    .prepare(
      isPostgresDb(db)
        ? `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()
           AND table_type = 'BASE TABLE' AND table_name <> 'nodectl_schema' ORDER BY table_name COLLATE "C"`
        : `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`,
    )
    .pluck()
    .all() as string[];
}
