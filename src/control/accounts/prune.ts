import type { Db } from '../../platform/storage/sqlite.js';
import { pruneMailTokens } from './mail-tokens.js';

/**
 * Deletes account records that can only ever fail: sessions past their expiry (their refresh
 * tokens go with them; a revoked session is kept until then, so a reused token still reads as
 * reuse) and mailed tokens past theirs. For a daily maintenance job.
 */
export function pruneAccountRecords(db: Db, now: number): { sessions: number; mailTokens: number } {
  return db
    .transaction(() => ({
      sessions: db.prepare('DELETE FROM sessions WHERE expires_at < ?').run(now).changes,
      mailTokens: pruneMailTokens(db, now),
    }))
    .immediate();
}
