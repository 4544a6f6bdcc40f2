import { afterEach, describe, expect, it } from 'vitest';
import { openControlDb } from '../../../src/platform/storage/control.js';
import { dataDirLayout } from '../../../src/platform/storage/data-dir.js';
import { createWebsiteLeases, type WebsiteLeases } from '../../../src/platform/storage/website-leases.js';
import { makeTempDir } from '../../helpers/paths.js';
import { createTestDatabase } from '../../helpers/postgres.js';

/**
 * The website leases (src/platform/storage/website-leases.ts): one conformance suite for
 * control.sqlite's and the PostgreSQL control store's. Each `daemon()` is its own connection to the
 * same store (another handle on the file, or another PostgreSQL connection), the clock a number.
 */
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Daemons = () => WebsiteLeases;

const STORES: Array<{ name: string; open: () => Promise<Daemons> }> = [
  {
    name: 'sqlite',
    open: async () => {
      const temp = makeTempDir('nodectl-leases-');
      cleanups.push(() => temp.cleanup());
      return () => {
        const db = openControlDb(dataDirLayout(temp.dir));
        cleanups.push(() => db.close());
        return createWebsiteLeases(db);
      };
    },
  },
  {
    name: 'postgres',
    open: async () => {
      const url = await createTestDatabase();
      const temp = makeTempDir('nodectl-leases-');
      cleanups.push(() => temp.cleanup());
      return () => {
        const db = openControlDb(dataDirLayout(temp.dir), url);
        cleanups.push(() => db.close());
        return createWebsiteLeases(db);
      };
    },
  },
];

const T0 = 1_700_000_000_000;
const TTL = 30_000;
const WEB = 'web_01JHKAB5P8S0T4W6X8Z0B2E4G6';
const OTHER_WEB = 'web_01JHKAB5P8S0T4W6X8Z0B2E4G7';

describe.each(STORES)('$name website leases', ({ open }) => {
  it('acquire grants a free website with token 1; another owner is refused and told the holder', async () => {
    const leases = (await open())();
    expect(await leases.holder(WEB, T0)).toBeUndefined();
    expect(await leases.acquire(WEB, 'a', T0, TTL)).toEqual({
      granted: true,
      lease: { websiteId: WEB, owner: 'a', token: 1, expiresAt: T0 + TTL, address: null },
    });
    expect(await leases.acquire(WEB, 'b', T0 + TTL - 1, TTL)).toEqual({
      granted: false,
      holder: { websiteId: WEB, owner: 'a', token: 1, expiresAt: T0 + TTL, address: null },
    });
    expect(await leases.holder(WEB, T0 + 1)).toEqual({
      websiteId: WEB,
      owner: 'a',
      token: 1,
      expiresAt: T0 + TTL,
      address: null,
    });
    // Another website is its own lease.
    expect(await leases.acquire(OTHER_WEB, 'b', T0, TTL)).toMatchObject({ granted: true, lease: { token: 1 } });
  });

  it('a grant records the address the holder gives; a new owner replaces it', async () => {
    const leases = (await open())();
    leases.acquire(WEB, 'a', T0, TTL, 'http://10.0.0.1:7070');
    expect(leases.holder(WEB, T0)?.address).toBe('http://10.0.0.1:7070');
    expect(leases.acquire(WEB, 'b', T0 + 1, TTL, 'http://10.0.0.2:7070')).toMatchObject({
      granted: false,
      holder: { owner: 'a', address: 'http://10.0.0.1:7070' },
    });
    expect(leases.acquire(WEB, 'b', T0 + TTL, TTL, 'http://10.0.0.2:7070')).toMatchObject({
      granted: true,
      lease: { owner: 'b', token: 2, address: 'http://10.0.0.2:7070' },
    });
  });

  it('the holder renews before expiry and re-acquires without a new token; nobody else renews', async () => {
    const leases = (await open())();
    await leases.acquire(WEB, 'a', T0, TTL);
    expect(await leases.renew(WEB, 'a', T0 + 10_000, TTL)).toBe(true);
    expect((await leases.holder(WEB, T0 + TTL + 1))?.expiresAt).toBe(T0 + 10_000 + TTL);
    expect(await leases.renew(WEB, 'b', T0 + 10_000, TTL)).toBe(false);
    expect(await leases.renew('web_never_leased', 'a', T0, TTL)).toBe(false);
    expect(await leases.acquire(WEB, 'a', T0 + 20_000, TTL)).toEqual({
      granted: true,
      lease: { websiteId: WEB, owner: 'a', token: 1, expiresAt: T0 + 20_000 + TTL, address: null },
    });
  });

  it('renewAll extends every live lease of the owner in one statement, and no other', async () => {
    const leases = (await open())();
    leases.acquire('web_a', 'a', T0, TTL);
    leases.acquire('web_b', 'a', T0, TTL);
    leases.acquire('web_c', 'b', T0, TTL);
    leases.acquire('web_d', 'a', T0 - TTL, TTL); // lapsed at T0
    expect(leases.renewAll('a', T0 + 10, TTL).map((l) => [l.websiteId, l.expiresAt])).toEqual([
      ['web_a', T0 + 10 + TTL],
      ['web_b', T0 + 10 + TTL],
    ]);
    expect(leases.holder('web_c', T0)?.expiresAt).toBe(T0 + TTL);
    expect(leases.holder('web_d', T0)).toBeUndefined();
    expect(() => leases.renewAll('a', T0, 0)).toThrow(/positive whole ms/);
  });

  it('release frees the website at once, keeps the token growing, and only the holder releases', async () => {
    const leases = (await open())();
    await leases.acquire(WEB, 'a', T0, TTL);
    expect(await leases.release(WEB, 'b')).toBe(false);
    expect((await leases.holder(WEB, T0))?.owner).toBe('a');
    expect(await leases.release(WEB, 'a')).toBe(true);
    expect(await leases.release(WEB, 'a')).toBe(false);
    expect(await leases.holder(WEB, T0)).toBeUndefined();
    expect(await leases.renew(WEB, 'a', T0, TTL)).toBe(false);
    expect(await leases.acquire(WEB, 'b', T0 + 1, TTL)).toMatchObject({
      granted: true,
      lease: { owner: 'b', token: 2 },
    });
    // Even the former owner coming back is a new tenure, with a new token.
    await leases.release(WEB, 'b');
    expect(await leases.acquire(WEB, 'a', T0 + 2, TTL)).toMatchObject({
      granted: true,
      lease: { owner: 'a', token: 3 },
    });
  });

  it('a lapsed lease goes to another owner with a higher token, and the former owner can no longer renew or release it', async () => {
    const daemon = await open();
    const [dying, survivor] = [daemon(), daemon()];
    expect(await dying.acquire(WEB, 'dying', T0, TTL)).toMatchObject({ granted: true, lease: { token: 1 } });
    // At the expiry instant the lease has lapsed (expiresAt <= now).
    expect(await survivor.holder(WEB, T0 + TTL)).toBeUndefined();
    expect(await survivor.acquire(WEB, 'survivor', T0 + TTL, TTL)).toEqual({
      granted: true,
      lease: { websiteId: WEB, owner: 'survivor', token: 2, expiresAt: T0 + 2 * TTL, address: null },
    });
    // The former owner wakes up: its renew is refused (even at a time it believes is before its expiry).
    expect(await dying.renew(WEB, 'dying', T0 + TTL - 1, TTL)).toBe(false);
    expect(await dying.renew(WEB, 'dying', T0 + TTL + 1, TTL)).toBe(false);
    expect(await dying.release(WEB, 'dying')).toBe(false);
    expect(await dying.acquire(WEB, 'dying', T0 + TTL + 1, TTL)).toMatchObject({
      granted: false,
      holder: { owner: 'survivor', token: 2 },
    });
    // Its token is lower than the current one: what a write it stamped is refused by.
    expect((await survivor.holder(WEB, T0 + TTL + 1))?.token).toBeGreaterThan(1);
  });

  it('owned() lists an owner’s live leases only, by website id', async () => {
    const leases = (await open())();
    await leases.acquire('web_c', 'a', T0, TTL);
    await leases.acquire('web_a', 'a', T0, 2 * TTL);
    await leases.acquire('web_b', 'b', T0, TTL);
    await leases.acquire('web_d', 'a', T0, TTL);
    await leases.release('web_d', 'a');
    expect((await leases.owned('a', T0 + 1)).map((l) => l.websiteId)).toEqual(['web_a', 'web_c']);
    expect(await leases.owned('a', T0 + TTL)).toEqual([
      { websiteId: 'web_a', owner: 'a', token: 1, expiresAt: T0 + 2 * TTL, address: null },
    ]);
    expect(await leases.owned('b', T0 + TTL)).toEqual([]);
    expect(await leases.owned('nobody', T0)).toEqual([]);
  });

  it('two owners asking for 50 websites in turn: each website goes to exactly one, and the other is told who', async () => {
    const daemon = await open();
    const [a, b] = [daemon(), daemon()];
    const websites = Array.from({ length: 50 }, (_, i) => `web_${String(i).padStart(2, '0')}`);
    // Two connections, alternating which asks first: the second of each pair meets the first's lease.
    const results = websites.flatMap((web, i) => {
      const pair = [
        { owner: 'a', leases: a },
        { owner: 'b', leases: b },
      ];
      if (i % 2 === 1) pair.reverse();
      return pair.map(({ owner, leases }) => ({ web, owner, result: leases.acquire(web, owner, T0, TTL) }));
    });
    for (const web of websites) {
      const both = results.filter((r) => r.web === web);
      const winners = both.filter((r) => r.result.granted);
      expect(
        winners.map((r) => r.web),
        `winners of ${web}`,
      ).toEqual([web]);
      const winner = winners[0]!.owner;
      const loser = both.find((r) => !r.result.granted)!;
      expect(loser.result).toEqual({
        granted: false,
        holder: { websiteId: web, owner: winner, token: 1, expiresAt: T0 + TTL, address: null },
      });
    }
    const ownedByA = (await b.owned('a', T0)).map((l) => l.websiteId);
    const ownedByB = (await a.owned('b', T0)).map((l) => l.websiteId);
    expect([...ownedByA, ...ownedByB].sort()).toEqual(websites);
    expect(ownedByA.filter((web) => ownedByB.includes(web))).toEqual([]);
  });

  it('refuses an empty owner and a ttl that is not a positive whole number of ms', async () => {
    const leases = (await open())();
    expect(() => leases.acquire(WEB, '', T0, TTL)).toThrow(/non-empty owner/);
    expect(() => leases.acquire(WEB, 'a', T0, 0)).toThrow(/positive whole ms/);
    expect(() => leases.renew(WEB, 'a', T0, 1.5)).toThrow(/positive whole ms/);
    expect(await leases.holder(WEB, T0)).toBeUndefined();
  });
});
