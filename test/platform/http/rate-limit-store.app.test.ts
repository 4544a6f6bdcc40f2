import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { consumeRateLimit } from '../../../src/platform/http/rate-limit.js';
import { createBufferedRateLimitStore } from '../../../src/platform/http/rate-limit-buffer.js';
import { createPostgresRateLimitStore } from '../../../src/platform/http/rate-limit-postgres.js';
import { createSqliteRateLimitStore } from '../../../src/platform/http/rate-limit-sqlite.js';
import type { RateLimitStore } from '../../../src/platform/http/rate-limit-store.js';
import { CONTROL_MIGRATIONS } from '../../../src/platform/storage/control-schema.js';
import { openPostgresControlStore } from '../../../src/platform/storage/postgres-control.js';
import type { PostgresStore } from '../../../src/platform/storage/postgres.js';
import { openDatabase, type Db } from '../../../src/platform/storage/sqlite.js';
import { makeTempDir } from '../../helpers/paths.js';
import { createTestDatabase } from '../../helpers/postgres.js';

/**
 * The rate-limit stores (src/platform/http/rate-limit-store.ts): one conformance suite that every store
 * runs, control.sqlite's and the PostgreSQL control store's on a real server (a Redis store would
 * join it), then two daemons sharing one PostgreSQL, and what the in-memory buffer in front of
 * control.sqlite adds: two daemons on one data directory see each other's counts after a flush.
 */
let temp: ReturnType<typeof makeTempDir>;
let db: Db;
beforeEach(() => {
  temp = makeTempDir('nodectl-rate-store-');
  db = openDatabase(`${temp.dir}/control.sqlite`, { migrations: CONTROL_MIGRATIONS });
});
afterEach(() => {
  db.close();
  temp.cleanup();
});

/** A PostgreSQL control store on a fresh database of the run's real server, closed after the test. */
const pgStores: PostgresStore[] = [];
afterEach(async () => {
  await Promise.all(pgStores.splice(0).map((store) => store.close()));
});
async function postgresStore(url?: string): Promise<PostgresStore> {
  const store = openPostgresControlStore(url ?? (await createTestDatabase()));
  pgStores.push(store);
  return store;
}

const STORES: Record<string, (db: Db) => Promise<RateLimitStore>> = {
  sqlite: async (d) => createSqliteRateLimitStore(d),
  'buffered sqlite': async (d) => createBufferedRateLimitStore(createSqliteRateLimitStore(d), { now: () => 0 }),
  postgres: async () => createPostgresRateLimitStore(await postgresStore()),
  'buffered postgres': async () =>
    createBufferedRateLimitStore(createPostgresRateLimitStore(await postgresStore()), { now: () => 0 }),
};

for (const [name, make] of Object.entries(STORES)) {
  describe(`${name} store conformance`, () => {
    it('counts per bucket and per window, by one or by more, and reads without counting', async () => {
      const store = await make(db);
      expect(await store.read('a', 0)).toBe(0);
      expect(await store.increment('a', 0, 60_000)).toBe(1);
      expect(await store.increment('a', 0, 60_000, 4)).toBe(5);
      expect(await store.read('a', 0)).toBe(5);
      expect(await store.increment('b', 0, 60_000)).toBe(1);
      expect(await store.increment('a', 60_000, 60_000)).toBe(1);
    });

    it('counts every one of concurrent increments exactly once', async () => {
      const store = await make(db);
      const counts = await Promise.all(Array.from({ length: 50 }, () => store.increment('c', 0, 60_000)));
      expect([...counts].sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    });
  });
}

describe('the PostgreSQL store shared by two daemons', () => {
  it('each adds to the same window: exact without a buffer, and after a flush with one', async () => {
    const url = await createTestDatabase();
    const [a, b] = [await postgresStore(url), await postgresStore(url)];
    const [sa, sb] = [createPostgresRateLimitStore(a), createPostgresRateLimitStore(b)];
    const counts = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? sa : sb).increment('k', 0, 60_000)));
    expect([...counts].sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(await sb.read('k', 0)).toBe(20);

    const rule = { name: 'requests', limit: 5, windowMs: 60_000 };
    const ba = createBufferedRateLimitStore(sa, { now: () => 0, flushMs: 3_600_000 });
    const bb = createBufferedRateLimitStore(sb, { now: () => 0, flushMs: 3_600_000 });
    for (let i = 0; i < 3; i++) await consumeRateLimit(ba, rule, 'key:1', 1_000);
    for (let i = 0; i < 2; i++) await consumeRateLimit(bb, rule, 'key:1', 1_000);
    await ba.flush();
    await bb.flush();
    await ba.flush();
    await expect(consumeRateLimit(ba, rule, 'key:1', 1_000)).rejects.toMatchObject({ code: 'quota.rate_limited' });
    await expect(consumeRateLimit(bb, rule, 'key:1', 1_000)).rejects.toMatchObject({ code: 'quota.rate_limited' });
    await Promise.all([ba.close(), bb.close()]);
  });
});

describe('the buffered store in front of control.sqlite', () => {
  it('writes nothing per request; a flush adds the counts to the table in one go', async () => {
    const store = createBufferedRateLimitStore(createSqliteRateLimitStore(db), { now: () => 0, flushMs: 3_600_000 });
    for (let i = 0; i < 7; i++) await store.increment('k', 0, 60_000);
    expect(db.prepare('SELECT count FROM rate_limits').all()).toEqual([]);
    await store.flush();
    expect(db.prepare('SELECT bucket, window_start, count FROM rate_limits').all()).toEqual([
      { bucket: 'k', window_start: 0, count: 7 },
    ]);
    await store.close();
  });

  it("two daemons on one data directory: each is exact for its own requests and sees the other's after a flush", async () => {
    const shared = createSqliteRateLimitStore(db);
    const a = createBufferedRateLimitStore(shared, { now: () => 0, flushMs: 3_600_000 });
    const b = createBufferedRateLimitStore(shared, { now: () => 0, flushMs: 3_600_000 });
    const rule = { name: 'requests', limit: 5, windowMs: 60_000 };
    for (let i = 0; i < 3; i++) await consumeRateLimit(a, rule, 'key:1', 1_000);
    for (let i = 0; i < 2; i++) await consumeRateLimit(b, rule, 'key:1', 1_000);
    await a.flush();
    await b.flush(); // b learns a's 3 as it adds its 2
    await a.flush(); // nothing to add: a reads b's 2
    // The window's 5 are used: the next request through either daemon is refused.
    await expect(consumeRateLimit(a, rule, 'key:1', 1_000)).rejects.toMatchObject({ code: 'quota.rate_limited' });
    await expect(consumeRateLimit(b, rule, 'key:1', 1_000)).rejects.toMatchObject({ code: 'quota.rate_limited' });
    await a.close();
    await b.close();
  });

  it('a failed write keeps its counts for the next flush; an unreachable store fails the request closed (503)', async () => {
    let down = false;
    const inner = createSqliteRateLimitStore(db);
    const flaky: RateLimitStore = {
      increment: (...args) => (down ? Promise.reject(new Error('store down')) : inner.increment(...args)),
      read: (...args) => (down ? Promise.reject(new Error('store down')) : inner.read(...args)),
    };
    const errors: unknown[] = [];
    const store = createBufferedRateLimitStore(flaky, {
      now: () => 0,
      flushMs: 3_600_000,
      onError: (error) => errors.push(error),
    });
    await store.increment('k', 0, 60_000, 3);
    down = true;
    await store.flush();
    expect(errors).toHaveLength(1);
    await expect(consumeRateLimit(store, { name: 'x', limit: 5, windowMs: 60_000 }, 'new', 0)).rejects.toMatchObject({
      code: 'service.unavailable',
      status: 503,
    });
    down = false;
    await store.flush();
    expect(await inner.read('k', 0)).toBe(3);
    await store.close();
  });

  it('forgets a window once it ended and nothing is pending', async () => {
    let clock = 0;
    const store = createBufferedRateLimitStore(createSqliteRateLimitStore(db), {
      now: () => clock,
      flushMs: 3_600_000,
    });
    await store.increment('k', 0, 60_000);
    await store.flush();
    db.prepare('UPDATE rate_limits SET count = 40').run(); // another daemon's counts, seen only on a fresh read
    expect(await store.read('k', 0)).toBe(1);
    clock = 60_000;
    await store.flush();
    expect(await store.read('k', 0)).toBe(40);
    await store.close();
  });

  it('counts what a flush is writing until the shared store answers: a slow store never lets a request through early', async () => {
    const inner = createSqliteRateLimitStore(db);
    let answer: (() => void) | undefined;
    const slow: RateLimitStore = {
      read: (bucket, windowStart) => inner.read(bucket, windowStart),
      increment: (bucket, windowStart, windowMs, by) =>
        answer
          ? inner.increment(bucket, windowStart, windowMs, by) // held once only
          : new Promise((resolve) => (answer = () => resolve(inner.increment(bucket, windowStart, windowMs, by)))),
    };
    const store = createBufferedRateLimitStore(slow, { now: () => 0, flushMs: 3_600_000 });
    for (let i = 0; i < 3; i++) await store.increment('k', 0, 60_000);
    const flushed = store.flush(); // the write of 3 is under way
    expect(await store.increment('k', 0, 60_000)).toBe(4);
    expect(await store.read('k', 0)).toBe(4);
    answer!();
    await flushed;
    expect(await store.read('k', 0)).toBe(4);
    await store.close();
  });
});
