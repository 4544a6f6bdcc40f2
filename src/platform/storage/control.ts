import { isPostgresUrl, redactUrlPassword } from '../config/index.js';
import { openDatabase, type Db } from './sqlite.js';
import { CONTROL_MIGRATIONS } from './control-schema.js';
import { ensureDataDir, type DataDirLayout } from './data-dir.js';
import { openPostgresControlDb } from './postgres-sync.js';

/**
 * Opens (creating and migrating if needed) the control database of a data directory: its
 * control.sqlite, or the PostgreSQL database when `controlStore` is a `postgres://` URL (every
 * control table then lives there, shared by every daemon using the same URL; docs/scaling.md).
 */
export function openControlDb(layout: DataDirLayout, controlStore?: string): Db {
  ensureDataDir(layout);
  if (controlStore !== undefined && isPostgresUrl(controlStore))
    return openPostgresControlDb(controlStore, { displayUrl: redactUrlPassword(controlStore) });
  return openDatabase(layout.controlDb, { migrations: CONTROL_MIGRATIONS });
}
