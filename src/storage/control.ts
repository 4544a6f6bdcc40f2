import { openDatabase, type Db } from './sqlite.js';
import { CONTROL_MIGRATIONS } from './control-schema.js';
import { ensureDataDir, graphDbPath, type DataDirLayout } from './data-dir.js';
import { GRAPH_DB_OPTIONS } from '../graph/schema.js';

/** Opens (creating and migrating if needed) the control database of a data directory. */
export function openControlDb(layout: DataDirLayout): Db {
  ensureDataDir(layout);
  return openDatabase(layout.controlDb, { migrations: CONTROL_MIGRATIONS });
}

/**
 * Keeps one open connection per website graph database. better-sqlite3 is synchronous, so one
 * connection per process and file is both the fastest and the safest arrangement.
 */
export class GraphDbPool {
  private readonly open = new Map<string, Db>();

  constructor(private readonly layout: DataDirLayout) {}

  get(websiteId: string): Db {
    let db = this.open.get(websiteId);
    if (!db) {
      db = openDatabase(graphDbPath(this.layout, websiteId), GRAPH_DB_OPTIONS);
      this.open.set(websiteId, db);
    }
    return db;
  }

  /** Closes and forgets one website's connection (before its file is deleted or moved). */
  release(websiteId: string): void {
    this.open.get(websiteId)?.close();
    this.open.delete(websiteId);
  }

  closeAll(): void {
    for (const db of this.open.values()) db.close();
    this.open.clear();
  }
}
