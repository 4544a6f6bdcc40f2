import { afterEach, describe, expect, it } from 'vitest';
import { openControlDb } from '../../src/storage/control.js';
import { dataDirLayout } from '../../src/storage/data-dir.js';
import { createSqliteIdempotencyStore, createSqliteNonceStore } from '../../src/ingest/stores/sqlite.js';
import type { IdempotencyStore, NonceStore } from '../../src/ingest/stores/types.js';
import { makeTempDir } from '../helpers/paths.js';

/** One conformance suite every store driver runs (a Redis driver would add its factory here). */
function storeSuite(name: string, make: () => { nonces: NonceStore; idempotency: IdempotencyStore; close: () => void }) {
  describe(`${name} stores`, () => {
    let stores: ReturnType<typeof make>;
    afterEach(() => stores?.close());

    it('nonce: set-if-absent, rejected while alive, reusable after expiry, scoped', async () => {
      stores = make();
      const { nonces } = stores;
      expect(await nonces.claim('c1', 'n', 1000, 600_000)).toBe(true);
      expect(await nonces.claim('c1', 'n', 2000, 600_000)).toBe(false);
      expect(await nonces.claim('c2', 'n', 2000, 600_000)).toBe(true);
      expect(await nonces.claim('c1', 'n', 1000 + 600_001, 600_000)).toBe(true);
    });

    it('idempotency: started, in flight, replay, conflict, release, expiry', async () => {
      stores = make();
      const { idempotency: s } = stores;
      expect(await s.begin('c', 'k', 'sha-a', 0, 1000)).toEqual({ outcome: 'started' });
      expect(await s.begin('c', 'k', 'sha-a', 10, 1000)).toEqual({ outcome: 'in_flight' });
      expect(await s.begin('c', 'k', 'sha-b', 10, 1000)).toEqual({ outcome: 'conflict' });
      await s.complete('c', 'k', 200, '{"ok":true}', 20, 86_400_000);
      expect(await s.begin('c', 'k', 'sha-a', 30, 1000)).toEqual({ outcome: 'replay', statusCode: 200, response: '{"ok":true}' });
      expect(await s.begin('c', 'k', 'sha-b', 30, 1000)).toEqual({ outcome: 'conflict' });
      expect(await s.begin('other', 'k', 'sha-b', 30, 1000)).toEqual({ outcome: 'started' });
      await s.release('other', 'k');
      expect(await s.begin('other', 'k', 'sha-c', 40, 1000)).toEqual({ outcome: 'started' });
      // An abandoned in-flight record lapses; a completed one after its retention.
      expect(await s.begin('other', 'k', 'sha-d', 40 + 1001, 1000)).toEqual({ outcome: 'started' });
      expect(await s.begin('c', 'k', 'sha-z', 20 + 86_400_001, 1000)).toEqual({ outcome: 'started' });
    });
  });
}

storeSuite('sqlite', () => {
  const temp = makeTempDir('nodectl-stores-');
  const db = openControlDb(dataDirLayout(temp.dir));
  return { nonces: createSqliteNonceStore(db), idempotency: createSqliteIdempotencyStore(db), close: () => (db.close(), temp.cleanup()) };
});
