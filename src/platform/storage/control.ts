import { openDatabase, type Db } from './sqlite.js';
import { CONTROL_MIGRATIONS } from './control-schema.js';
import { ensureDataDir, type DataDirLayout } from './data-dir.js';

/** Opens (creating and migrating if needed) the control database of a data directory. */
export function openControlDb(layout: DataDirLayout): Db {
  ensureDataDir(layout);
  return openDatabase(layout.controlDb, { migrations: CONTROL_MIGRATIONS });
}
