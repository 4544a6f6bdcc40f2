import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openControlDb } from '../../../src/platform/storage/control.js';
import { dataDirLayout } from '../../../src/platform/storage/data-dir.js';
import {
  createSqliteIdempotencyStore,
  createSqliteNonceStore,
} from '../../../src/ingest/endpoints/stores/sqlite-stores.js';
import {
  createPostgresIdempotencyStore,
  createPostgresNonceStore,
} from '../../../src/ingest/endpoints/stores/postgres-stores.js';
import type { IdempotencyStore, InFlightLease, NonceStore } from '../../../src/ingest/endpoints/stores/types.js';
import { openPostgresControlStore } from '../../../src/platform/storage/postgres-control.js';
import type { PostgresStore } from '../../../src/platform/storage/postgres.js';
import { makeTempDir } from '../../helpers/paths.js';
import { createTestDatabase } from '../../helpers/postgres.js';

/** A lease held by `owner`; `gone` lists the owners judged dead. */
function lease(ttlMs: number, owner = 'host:1:A', gone: readonly string[] = []): InFlightLease {
  return { ttlMs, owner, isOwnerGone: (other) => gone.includes(other) };
}

interface Stores {
  nonces: NonceStore;
  idempotency: IdempotencyStore;
  close: () => void | Promise<void>;
}

/** One conformance suite every store driver runs (a Redis driver would add its factory here). */
function storeSuite(name: string, make: () => Promise<Stores>) {
  describe(`${name} stores`, () => {
    let stores: Stores;
    afterEach(async () => {
      await stores?.close();
    });

    it('nonce: set-if-absent, rejected while alive, reusable after expiry, scoped', async () => {
      stores = await make();
      const { nonces } = stores;
      expect(await nonces.claim('c1', 'n', 1000, 600_000)).toBe(true);
      expect(await nonces.claim('c1', 'n', 2000, 600_000)).toBe(false);
      expect(await nonces.claim('c2', 'n', 2000, 600_000)).toBe(true);
      expect(await nonces.claim('c1', 'n', 1000 + 600_001, 600_000)).toBe(true);
    });

    it('idempotency: started, in flight, replay, conflict, release, expiry', async () => {
      stores = await make();
      const { idempotency: s } = stores;
      expect(await s.begin('c', 'k', 'sha-a', 0, lease(1000))).toEqual({ outcome: 'started' });
      expect(await s.begin('c', 'k', 'sha-a', 10, lease(1000))).toEqual({ outcome: 'in_flight' });
      expect(await s.begin('c', 'k', 'sha-b', 10, lease(1000))).toEqual({ outcome: 'conflict' });
      await s.complete('c', 'k', 200, '{"ok":true}', 20, 86_400_000);
      expect(await s.begin('c', 'k', 'sha-a', 30, lease(1000))).toEqual({
        outcome: 'replay',
        statusCode: 200,
        response: '{"ok":true}',
      });
      expect(await s.begin('c', 'k', 'sha-b', 30, lease(1000))).toEqual({ outcome: 'conflict' });
      expect(await s.begin('other', 'k', 'sha-b', 30, lease(1000))).toEqual({ outcome: 'started' });
      await s.release('other', 'k');
      expect(await s.begin('other', 'k', 'sha-c', 40, lease(1000))).toEqual({ outcome: 'started' });
      // An abandoned in-flight record lapses; a completed one after its retention.
      expect(await s.begin('other', 'k', 'sha-d', 40 + 1001, lease(1000))).toEqual({ outcome: 'started' });
      expect(await s.begin('c', 'k', 'sha-z', 20 + 86_400_001, lease(1000))).toEqual({ outcome: 'started' });
    });

    it('idempotency: an in-flight record whose owner is gone is abandoned at once, not after its lease (bug: 503 for 5 min after a kill -9)', async () => {
      stores = await make();
      const { idempotency: s } = stores;
      expect(await s.begin('c', 'k', 'sha-a', 0, lease(300_000, 'host:1:DEAD'))).toEqual({ outcome: 'started' });
      // A live owner keeps it in flight; once its owner is judged gone, the retry starts afresh.
      expect(await s.begin('c', 'k', 'sha-a', 10, lease(300_000, 'host:2:B'))).toEqual({ outcome: 'in_flight' });
      expect(await s.begin('c', 'k', 'sha-a', 10, lease(300_000, 'host:2:B', ['host:1:DEAD']))).toEqual({
        outcome: 'started',
      });
      // The new owner's record is not the dead one's: still in flight for others.
      expect(await s.begin('c', 'k', 'sha-a', 20, lease(300_000, 'host:3:C', ['host:1:DEAD']))).toEqual({
        outcome: 'in_flight',
      });
      // Even another body may start once the owner is gone (the dead request can never complete).
      expect(await s.begin('c', 'k2', 'sha-a', 0, lease(300_000, 'host:1:DEAD'))).toEqual({ outcome: 'started' });
      expect(await s.begin('c', 'k2', 'sha-other', 10, lease(300_000, 'host:2:B', ['host:1:DEAD']))).toEqual({
        outcome: 'started',
      });
      // A completed record is never judged by its owner.
      await s.complete('c', 'k2', 200, '{"ok":true}', 20, 86_400_000);
      expect(await s.begin('c', 'k2', 'sha-other', 30, lease(300_000, 'host:2:B', ['host:2:B']))).toEqual({
        outcome: 'replay',
        statusCode: 200,
        response: '{"ok":true}',
      });
    });

    it('idempotency: releaseAbandoned forgets only the in-flight records of gone owners', async () => {
      stores = await make();
      const { idempotency: s } = stores;
      await s.begin('c', 'dead-1', 'sha', 0, lease(300_000, 'host:1:DEAD'));
      await s.begin('c', 'dead-2', 'sha', 0, lease(300_000, 'host:1:DEAD'));
      await s.begin('c', 'alive', 'sha', 0, lease(300_000, 'host:2:LIVE'));
      await s.begin('c', 'done', 'sha', 0, lease(300_000, 'host:1:DEAD'));
      await s.complete('c', 'done', 200, '{}', 0, 86_400_000);
      expect(await s.releaseAbandoned((owner) => owner === 'host:1:DEAD')).toBe(2);
      expect(await s.begin('c', 'dead-1', 'sha', 10, lease(300_000, 'host:9:NEW'))).toEqual({ outcome: 'started' });
      expect(await s.begin('c', 'alive', 'sha', 10, lease(300_000, 'host:9:NEW'))).toEqual({ outcome: 'in_flight' });
      expect(await s.begin('c', 'done', 'sha', 10, lease(300_000, 'host:9:NEW'))).toMatchObject({ outcome: 'replay' });
      expect(await s.releaseAbandoned(() => false)).toBe(0);
    });
  });
}

storeSuite('sqlite', async () => {
  const temp = makeTempDir('nodectl-stores-');
  const db = openControlDb(dataDirLayout(temp.dir));
  return {
    nonces: createSqliteNonceStore(db),
    idempotency: createSqliteIdempotencyStore(db),
    close: () => (db.close(), temp.cleanup()),
  };
});

/** The stores of controlStore = postgres://..., on a fresh database of the run's real server. */
storeSuite('postgres', async () => {
  const store = openPostgresControlStore(await createTestDatabase());
  return {
    nonces: createPostgresNonceStore(store),
    idempotency: createPostgresIdempotencyStore(store),
    close: () => store.close(),
  };
});

describe('postgres stores shared by two daemons', () => {
  let a: PostgresStore;
  let b: PostgresStore;
  beforeEach(async () => {
    const url = await createTestDatabase();
    // Two pools on one database, as two daemons on two machines have.
    [a, b] = [openPostgresControlStore(url), openPostgresControlStore(url)];
  });
  afterEach(async () => {
    await Promise.all([a.close(), b.close()]);
  });

  it("each sees the other's nonces: a nonce claimed through one is a replay through the other", async () => {
    const [na, nb] = [createPostgresNonceStore(a), createPostgresNonceStore(b)];
    expect(await na.claim('c1', 'n', 1000, 600_000)).toBe(true);
    expect(await nb.claim('c1', 'n', 2000, 600_000)).toBe(false);
    expect(await nb.claim('c1', 'other', 2000, 600_000)).toBe(true);
    expect(await na.claim('c1', 'other', 2000, 600_000)).toBe(false);
  });

  it('of concurrent claims of one nonce through both, exactly one wins', async () => {
    const stores = [createPostgresNonceStore(a), createPostgresNonceStore(b)];
    const claims = await Promise.all(
      Array.from({ length: 20 }, (_, i) => stores[i % 2]!.claim('c1', 'race', 1000, 600_000)),
    );
    expect(claims.filter(Boolean)).toHaveLength(1);
  });

  it("each sees the other's idempotency records: in flight, then replayed, and a single start of concurrent ones", async () => {
    const [ia, ib] = [createPostgresIdempotencyStore(a), createPostgresIdempotencyStore(b)];
    expect(await ia.begin('c', 'k', 'sha-a', 0, lease(60_000, 'host-a:1:A'))).toEqual({ outcome: 'started' });
    expect(await ib.begin('c', 'k', 'sha-a', 10, lease(60_000, 'host-b:1:B'))).toEqual({ outcome: 'in_flight' });
    expect(await ib.begin('c', 'k', 'sha-b', 10, lease(60_000, 'host-b:1:B'))).toEqual({ outcome: 'conflict' });
    await ia.complete('c', 'k', 202, '{"accepted":1}', 20, 86_400_000);
    expect(await ib.begin('c', 'k', 'sha-a', 30, lease(60_000, 'host-b:1:B'))).toEqual({
      outcome: 'replay',
      statusCode: 202,
      response: '{"accepted":1}',
    });
    const begun = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 ? ia : ib).begin('c', 'race', 'sha', 40, lease(60_000, `host-${i % 2}:1:X`)),
      ),
    );
    expect(begun.filter((r) => r.outcome === 'started')).toHaveLength(1);
    expect(begun.filter((r) => r.outcome === 'in_flight')).toHaveLength(9);
  });
});

describe('sqlite stores durability', () => {
  it('write without an fsync, leave control.sqlite at synchronous=FULL, and flush() syncs what they wrote before the answer', async () => {
    const temp = makeTempDir('nodectl-stores-');
    const db = openControlDb(dataDirLayout(temp.dir));
    try {
      const nonces = createSqliteNonceStore(db);
      const idempotency = createSqliteIdempotencyStore(db);
      expect(await nonces.claim('c', 'n1', 0, 600_000)).toBe(true);
      expect(await idempotency.begin('c', 'k', 'sha', 0, lease(1000))).toEqual({ outcome: 'started' });
      await idempotency.complete('c', 'k', 200, '{}', 0, 86_400_000);
      expect(db.pragma('synchronous', { simple: true })).toBe(2);
      await expect(Promise.all([nonces.flush?.(), idempotency.flush?.()])).resolves.toBeDefined();
      expect(nonces.flush).toBeTypeOf('function');
      expect(db.prepare('SELECT state FROM idempotency').pluck().get()).toBe('completed');
    } finally {
      db.close();
      temp.cleanup();
    }
  });
});
