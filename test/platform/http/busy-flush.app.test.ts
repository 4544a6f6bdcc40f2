import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createReadCounter } from '../../../src/control/analytics/read-counter.js';
import { createBufferedRateLimitStore } from '../../../src/platform/http/rate-limit-buffer.js';
import { createSqliteRateLimitStore } from '../../../src/platform/http/rate-limit-sqlite.js';
import { createUsageBuffer } from '../../../src/platform/storage/usage-buffer.js';
import { monthOf, readUsage } from '../../../src/platform/storage/usage-counters.js';
import { openControlDb } from '../../../src/platform/storage/control.js';
import { dataDirLayout } from '../../../src/platform/storage/data-dir.js';
import { writeWithoutWaiting, type Db } from '../../../src/platform/storage/sqlite.js';
import { createOrganization } from '../../../src/control/records/organizations.js';
import { createUser } from '../../../src/control/records/users.js';
import { createWebsite } from '../../../src/control/records/websites.js';
import { makeTempDir } from '../../helpers/paths.js';

/**
 * Bug: while another process held control.sqlite's write lock, each background flush (rate-limit
 * counters, usage counters, node-read counts) waited the 5 s busy timeout synchronously, one
 * after another, stalling the daemon's event loop past its headers timeout (requests were reset),
 * and a read-count flush that gave up threw inside its timer. Flushes now never wait: a busy
 * database keeps the counts for the next flush.
 */

const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);
let temp: { dir: string; cleanup: () => void };
let db: Db;
let holder: Database.Database;
let organizationId: string;
let websiteId: string;

beforeEach(async () => {
  temp = makeTempDir('nodectl-busy-flush-');
  db = openControlDb(dataDirLayout(temp.dir));
  await createUser(db, { email: 'owner@example.com', password: 'correct-horse-battery' }, NOW);
  organizationId = createOrganization(db, { name: 'Busy Org', ownerEmail: 'owner@example.com', plan: 'pro' }, NOW).id;
  websiteId = createWebsite(db, { organizationId, domain: 'busy.example', name: 'Busy' }, NOW).id;
  holder = new Database(dataDirLayout(temp.dir).controlDb);
});
afterEach(() => {
  if (holder.inTransaction) holder.exec('ROLLBACK');
  holder.close();
  db.close();
  temp.cleanup();
});

/**
 * Runs `fn` and returns the busy timeouts (ms) it gave `db` in turn. SQLite waits for another
 * connection's lock only as long as the busy timeout says: [0, 5000] is a write tried without
 * waiting, then the connection's 5 s timeout put back; a flush that waited sets none.
 */
async function busyTimeoutsSetBy(fn: () => unknown): Promise<number[]> {
  const set: number[] = [];
  const pragma = db.pragma.bind(db);
  const spy = vi.spyOn(db, 'pragma').mockImplementation(((source: string, options?: Parameters<Db['pragma']>[1]) => {
    const assigned = /^busy_timeout\s*=\s*(\d+)$/.exec(source.trim());
    if (assigned) set.push(Number(assigned[1]));
    return pragma(source, options);
  }) as Db['pragma']);
  try {
    await fn();
  } finally {
    spy.mockRestore();
  }
  return set;
}
const NEVER_WAITS = [0, 5_000];

describe('background flushes never wait for another process write lock (bug: 5 s event-loop stalls per flush)', () => {
  it('writeWithoutWaiting returns false at once and writes nothing while the lock is held, and restores the busy timeout', async () => {
    holder.exec('BEGIN IMMEDIATE');
    let written = true;
    const timeouts = await busyTimeoutsSetBy(
      () =>
        (written = writeWithoutWaiting(db, () =>
          db.prepare("INSERT INTO rate_limits (bucket, window_start, count) VALUES ('b', 0, 1)").run(),
        )),
    );
    expect(written).toBe(false);
    expect(timeouts).toEqual(NEVER_WAITS);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5_000);
    holder.exec('ROLLBACK');
    expect(
      writeWithoutWaiting(db, () =>
        db.prepare("INSERT INTO rate_limits (bucket, window_start, count) VALUES ('b', 0, 1)").run(),
      ),
    ).toBe(true);
  });

  it('usage counts wait for the next flush instead of being lost or blocking', async () => {
    const usage = createUsageBuffer(db, { now: () => NOW, flushMs: 3_600_000 });
    usage.count(organizationId, 'api_requests', 3);
    holder.exec('BEGIN IMMEDIATE');
    expect(await busyTimeoutsSetBy(() => usage.flush())).toEqual(NEVER_WAITS);
    usage.count(organizationId, 'api_requests', 2);
    holder.exec('ROLLBACK');
    usage.flush();
    expect(readUsage(db, organizationId, monthOf(NOW)).api_requests).toBe(5);
    usage.close();
  });

  it('node read counts wait for the next flush, and a flush never throws from its timer', async () => {
    const errors: unknown[] = [];
    const reads = createReadCounter(db, { now: () => NOW, flushMs: 3_600_000, onError: (error) => errors.push(error) });
    reads.count(websiteId, 'gptbot', 'llms.txt');
    holder.exec('BEGIN IMMEDIATE');
    expect(await busyTimeoutsSetBy(() => reads.flush())).toEqual(NEVER_WAITS);
    reads.count(websiteId, 'gptbot', 'llms.txt');
    holder.exec('ROLLBACK');
    reads.flush();
    const total = db
      .prepare("SELECT SUM(value) AS n FROM analytics_events WHERE website_id = ? AND metric = 'node.reads'")
      .get(websiteId) as { n: number };
    expect(total.n).toBe(2);
    expect(errors).toEqual([]);
    reads.close();
  });

  it('rate-limit counts stay pending while the lock is held and reach control.sqlite after', async () => {
    const errors: unknown[] = [];
    const store = createBufferedRateLimitStore(createSqliteRateLimitStore(db, { waitForLock: false }), {
      now: () => NOW,
      flushMs: 3_600_000,
      onError: (error) => errors.push(error),
    });
    await store.increment('bucket-a', NOW, 60_000, 4);
    holder.exec('BEGIN IMMEDIATE');
    expect(await busyTimeoutsSetBy(() => store.flush())).toEqual(NEVER_WAITS);
    expect(errors).toHaveLength(1);
    holder.exec('ROLLBACK');
    await store.flush();
    expect(
      (db.prepare("SELECT count FROM rate_limits WHERE bucket = 'bucket-a'").get() as { count: number }).count,
    ).toBe(4);
    expect(await store.read('bucket-a', NOW)).toBe(4);
    await store.close();
  });
});
