import { statSync } from 'node:fs';
import type { Db } from './sqlite.js';

interface Kept {
  dev: number;
  ino: number;
  db: Db;
  idle?: NodeJS.Timeout;
}

/**
 * Connections a worker thread keeps open between requests, one per database file, each closed
 * after `idleMs` unused (from its last get or touch): an open connection would keep a deleted
 * website's file on disk. A file may also be deleted and made again between two requests, and a
 * file a connection holds open keeps its inode, so a connection is kept only while its path names
 * the same device and inode. `inUse(db)` keeps one past its idle time while its owner still has
 * work for it.
 */
export class KeptConnections {
  private readonly kept = new Map<string, Kept>();

  constructor(
    private readonly open: (file: string) => Db,
    private readonly idleMs: number,
    private readonly inUse: (db: Db) => boolean = () => false,
  ) {}

  get(file: string): Db {
    const { dev, ino } = statSync(file);
    let kept = this.kept.get(file);
    if (kept !== undefined && (kept.dev !== dev || kept.ino !== ino)) {
      this.close(file);
      kept = undefined;
    }
    if (kept === undefined) {
      kept = { dev, ino, db: this.open(file) };
      this.kept.set(file, kept);
    }
    this.keep(file, kept);
    return kept.db;
  }

  /**
   * Starts the file's idle time again: the owner calls it when a use ends (a write transaction can
   * outlast the idle time, and the connection's page cache is worth keeping for the next one).
   */
  touch(file: string): void {
    const kept = this.kept.get(file);
    if (kept !== undefined) this.keep(file, kept);
  }

  private keep(file: string, kept: Kept): void {
    clearTimeout(kept.idle);
    kept.idle = setTimeout(() => (this.inUse(kept.db) ? this.keep(file, kept) : this.close(file)), this.idleMs).unref();
  }

  private close(file: string): void {
    const kept = this.kept.get(file);
    if (kept === undefined) return;
    clearTimeout(kept.idle);
    this.kept.delete(file);
    kept.db.close();
  }
}
