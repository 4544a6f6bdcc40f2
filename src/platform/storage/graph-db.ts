import { GRAPH_MIGRATIONS } from './migrations/graph/index.js';
import { INBOX_MIGRATIONS } from './migrations/inbox/index.js';
import { graphDbPath, graphInboxPath, type DataDirLayout } from './data-dir.js';
import { openDatabase, type Db } from './sqlite.js';

/**
 * How every graph database (graphs/<websiteId>.sqlite) is opened. 16 KiB pages: raw item bodies of
 * 2 to 20 KB overflow 4 KiB pages into long chains, and 16 KiB pages make inserting a batch
 * cheaper (figures: docs/decisions.md). SQLite applies the size only when it creates the file.
 */
export const GRAPH_DB_OPTIONS = { migrations: GRAPH_MIGRATIONS, pageSize: 16_384 } as const;

/** How every inbox database (graphs/<websiteId>.inbox.sqlite) is opened: it holds item bodies too. */
export const INBOX_DB_OPTIONS = { migrations: INBOX_MIGRATIONS, pageSize: 16_384 } as const;

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
 * Keeps one open connection per website graph database, and one per inbox database. better-sqlite3
 * is synchronous, so one connection per process and file is both the fastest and the safest arrangement.
 */
export class GraphDbPool {
  private readonly open = new Map<string, Db>();
  private readonly inboxes = new Map<string, Db>();

  constructor(private readonly layout: DataDirLayout) {}

  get(websiteId: string): Db {
    let db = this.open.get(websiteId);
    if (!db) {
      db = openDatabase(graphDbPath(this.layout, websiteId), GRAPH_DB_OPTIONS);
      this.open.set(websiteId, db);
    }
    return db;
  }

  /** The website's inbox database (created on first use), numbering past every version its graph holds. */
  inbox(websiteId: string): Db {
    let db = this.inboxes.get(websiteId);
    if (!db) {
      db = openDatabase(graphInboxPath(this.layout, websiteId), INBOX_DB_OPTIONS);
      raiseInboxSequence(this.get(websiteId), db);
      this.inboxes.set(websiteId, db);
    }
    return db;
  }

  /** Closes and forgets one website's connections (before its files are deleted or moved). */
  release(websiteId: string): void {
    this.open.get(websiteId)?.close();
    this.open.delete(websiteId);
    this.inboxes.get(websiteId)?.close();
    this.inboxes.delete(websiteId);
  }

  closeAll(): void {
    for (const db of [...this.open.values(), ...this.inboxes.values()]) db.close();
    this.open.clear();
    this.inboxes.clear();
  }
}

/**
 * Makes the inbox number new versions past every version the graph holds (raw_items.accepted_seq):
 * an inbox made again beside an older graph (a lost file), or a graph restored from another
 * daemon's snapshot, would otherwise number new versions as older ones, and moves would skip them.
 */
export function raiseInboxSequence(graph: Db, inbox: Db): void {
  const held = (graph.prepare('SELECT max(accepted_seq) FROM raw_items').pluck().get() as number | null) ?? 0;
  const next = inbox.prepare(`SELECT seq FROM sqlite_sequence WHERE name = 'inbox_items'`).pluck().get() as
    number | undefined;
  if (next === undefined) inbox.prepare(`INSERT INTO sqlite_sequence (name, seq) VALUES ('inbox_items', ?)`).run(held);
  else if (next < held) inbox.prepare(`UPDATE sqlite_sequence SET seq = ? WHERE name = 'inbox_items'`).run(held);
}
