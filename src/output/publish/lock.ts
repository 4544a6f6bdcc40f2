import { hostname } from 'node:os';
import type { Db } from '../../platform/storage/index.js';
import { AppError } from '../../platform/errors/index.js';
import { newUlid } from '../../platform/ids/index.js';

/** How long a lock lives without a renewal; a publish renews it while it runs. Default 2 minutes. */
export const PUBLISH_LOCK_TTL_MS = 120_000;

export interface PublishLock {
  readonly holder: string;
  /** Pushes the expiry out again (called between publish steps). */
  renew(): void;
  release(): void;
}

/** Is the holder a process on this host that no longer runs? Then its lock is stale at once. */
function holderIsDead(holder: string): boolean {
  const [host, pid] = holder.split(':');
  if (host !== hostname() || pid === undefined || !/^\d+$/.test(pid)) return false;
  return isLocalProcessGone(Number(pid));
}

/** Whether no process of this pid runs on this host (signal 0 answers ESRCH). */
export function isLocalProcessGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Takes the per-site publish lock (publish_locks in control.sqlite, shared by every process on
 * the data directory). A live holder makes this fail with 409 publish.conflict (retryable); a
 * lock past its expiry, or held by a dead process on this host, is taken over.
 */
export function acquirePublishLock(
  db: Db,
  websiteId: string,
  options: { now?: () => number; ttlMs?: number } = {},
): PublishLock {
  const now = options.now ?? Date.now;
  const ttl = options.ttlMs ?? PUBLISH_LOCK_TTL_MS;
  const holder = `${hostname()}:${process.pid}:${newUlid()}`;
  const take = db.transaction(() => {
    const row = db
      .prepare('SELECT holder, expires_at AS expiresAt FROM publish_locks WHERE website_id = ?')
      .get(websiteId) as { holder: string; expiresAt: number } | undefined;
    if (row && row.expiresAt > now() && !holderIsDead(row.holder)) {
      const seconds = Math.max(1, Math.ceil((row.expiresAt - now()) / 1000));
      throw new AppError(
        'publish.conflict',
        `Another publish of website ${websiteId} is running (${row.holder.split(':').slice(0, 2).join(' pid ')}); retry when it finishes.`,
        { retryAfterSeconds: Math.min(seconds, 30), details: { holder: row.holder } },
      );
    }
    db.prepare(
      'INSERT INTO publish_locks (website_id, holder, expires_at) VALUES (?, ?, ?) ON CONFLICT (website_id) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at',
    ).run(websiteId, holder, now() + ttl);
  });
  take.immediate();
  return {
    holder,
    renew() {
      db.prepare('UPDATE publish_locks SET expires_at = ? WHERE website_id = ? AND holder = ?').run(
        now() + ttl,
        websiteId,
        holder,
      );
    },
    release() {
      if (db.open) db.prepare('DELETE FROM publish_locks WHERE website_id = ? AND holder = ?').run(websiteId, holder);
    },
  };
}
