import { GRAPH_MIGRATIONS } from './migrations/graph/index.js';
import { graphDbPath, type DataDirLayout } from './data-dir.js';
import { openDatabase, type Db } from './sqlite.js';

/**
 * How every graph database (graphs/<websiteId>.sqlite) is opened. 16 KiB pages: raw item bodies of
 * 2 to 20 KB overflow 4 KiB pages into long chains, and 16 KiB pages make inserting a batch
 * cheaper (figures: docs/decisions.md). SQLite applies the size only when it creates the file.
 */
export const GRAPH_DB_OPTIONS = { migrations: GRAPH_MIGRATIONS, pageSize: 16_384 } as const;

/**
 * WAL a graph connection that writes the graph store (content.ingest) may accumulate before
 * SQLite checkpoints inside a commit. SQLite's default of 1,000 pages (16 MiB at 16 KiB pages)
 * made nearly every 500-item batch copy the WAL into the database file and fsync it, as a batch
 * writes more WAL than that. A checkpoint copies each page the WAL holds once, however many
 * batches rewrote it, so a larger bound copies less (figures: docs/graph.md "Throughput"). Same
 * bound as the ingest requests' (src/ingest/endpoints/wal-checkpoint.ts), which also checkpoint
 * once ingestion is idle.
 */
export const GRAPH_WAL_AUTOCHECKPOINT_BYTES = 256 * 1024 * 1024;

/**
 * What a graph WAL file is cut back to once a checkpoint has
 * folded it in (SQLite keeps the file at its largest otherwise).
 */
export const GRAPH_WAL_KEPT_BYTES = 64 * 1024 * 1024;

/** Raises `db`'s autocheckpoint limit to GRAPH_WAL_AUTOCHECKPOINT_BYTES (never lowers it). */
export function raiseWalAutocheckpoint(db: Db): void {
  const pages = Math.ceil(GRAPH_WAL_AUTOCHECKPOINT_BYTES / (db.pragma('page_size', { simple: true }) as number));
  const current = db.pragma('wal_autocheckpoint', { simple: true }) as number;
  // 0 (or less) means never: nothing to raise.
  if (current > 0 && current < pages) {
    db.pragma(`wal_autocheckpoint = ${pages}`);
    db.pragma(`journal_size_limit = ${GRAPH_WAL_KEPT_BYTES}`);
  }
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
