import { afterEach, describe, expect, it } from 'vitest';
import {
  appendJournal,
  lastJournalSeq,
  LeaseLostError,
  pruneJournal,
  readJournal,
  type JournalEntry,
} from '../../../src/ingest/handover/journal.js';
import { isAppError } from '../../../src/platform/errors/app-error.js';
import { clock, CONTROL_STORES, daemon, item, runCleanups, TTL, WEB, type Daemon } from './support.js';

/** The ingest journal (src/ingest/handover/journal.ts) on both control stores. */
afterEach(runCleanups);

const noStore = {
  putFile: async () => {},
  localFolder: async () => '',
  delete: async () => {},
  list: async () => [],
};

const itemsEntry = (...ids: string[]): JournalEntry => ({
  kind: 'items',
  connectorId: 'conn_1',
  receivedAt: '2027-01-15T08:00:00.000Z',
  defaultLanguage: 'en',
  items: ids.map((id) => ({ item: item(id), raw: JSON.stringify(item(id)) })),
});
const deleteEntry = (...ids: string[]): JournalEntry => ({
  kind: 'delete',
  ids,
  reason: 'source_deleted',
  at: '2027-01-15T09:00:00.000Z',
});

describe.each(CONTROL_STORES)('the ingest journal on $name', (store) => {
  const two = async (): Promise<[Daemon, Daemon]> => {
    const connect = await store.connect();
    return [daemon('a', connect(), noStore), daemon('b', connect(), noStore)];
  };

  it('appends in order and reads back validated entries after a seq, page by page; prunes up to a seq', async () => {
    const [a] = await two();
    const token = await a.acquire();
    const entries = [itemsEntry('1', '2'), deleteEntry('1'), itemsEntry('3'), deleteEntry('2', '3'), itemsEntry('4')];
    const seqs = entries.map((entry) => appendJournal(a.controlDb, { websiteId: WEB, token, nowMs: clock.ms, entry }));
    expect([...seqs].sort((x, y) => x - y)).toEqual(seqs);
    expect(new Set(seqs).size).toBe(5);
    expect(lastJournalSeq(a.controlDb, WEB)).toBe(seqs[4]);
    expect(lastJournalSeq(a.controlDb, 'web_other')).toBe(0);
    // Pages of two: five entries still come back whole, in order.
    const read = [...readJournal(a.controlDb, WEB, 0, 2)];
    expect(read.map((r) => r.seq)).toEqual(seqs);
    expect(read.map((r) => r.entry)).toEqual(entries);
    expect(read.every((r) => r.token === token && r.createdAt === clock.ms)).toBe(true);
    expect([...readJournal(a.controlDb, WEB, seqs[2]!, 2)].map((r) => r.seq)).toEqual(seqs.slice(3));
    expect(pruneJournal(a.controlDb, WEB, seqs[1]!)).toBe(2);
    expect([...readJournal(a.controlDb, WEB, 0)].map((r) => r.seq)).toEqual(seqs.slice(2));
  });

  it("refuses a former owner's append once another daemon acquired the website, and a lapsed owner's", async () => {
    const [a, b] = await two();
    const tokenA = await a.acquire();
    appendJournal(a.controlDb, { websiteId: WEB, token: tokenA, nowMs: clock.ms, entry: itemsEntry('1') });
    // A pauses past its lease; nobody took it yet: still refused (its lease lapsed).
    clock.ms += TTL + 1;
    const lapsed = () =>
      appendJournal(a.controlDb, { websiteId: WEB, token: tokenA, nowMs: clock.ms, entry: itemsEntry('2') });
    expect(lapsed).toThrow(LeaseLostError);
    const tokenB = await b.acquire();
    expect(tokenB).toBe(tokenA + 1);
    // A wakes up with its old clock: the token, not the time, refuses it.
    let refused: unknown;
    try {
      appendJournal(a.controlDb, { websiteId: WEB, token: tokenA, nowMs: clock.ms - TTL, entry: itemsEntry('2') });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(LeaseLostError);
    expect(isAppError(refused) && refused.code).toBe('service.unavailable');
    expect((refused as Error).message).toMatch(/retry/);
    const seqB = appendJournal(b.controlDb, {
      websiteId: WEB,
      token: tokenB,
      nowMs: clock.ms,
      entry: deleteEntry('1'),
    });
    const read = [...readJournal(b.controlDb, WEB, 0)];
    expect(read.map((r) => [r.token, r.entry.kind])).toEqual([
      [tokenA, 'items'],
      [tokenB, 'delete'],
    ]);
    expect(read[1]!.seq).toBe(seqB);
  });

  it('refuses to read back a stored body that is not an entry, naming it', async () => {
    const [a] = await two();
    const token = await a.acquire();
    appendJournal(a.controlDb, { websiteId: WEB, token, nowMs: clock.ms, entry: itemsEntry('1') });
    a.controlDb
      .prepare(`INSERT INTO ingest_journal (website_id, token, kind, body, created_at) VALUES (?, ?, 'items', ?, ?)`)
      .run(
        WEB,
        token,
        JSON.stringify({
          connectorId: 'conn_1',
          receivedAt: '2027-01-15T08:00:00.000Z',
          defaultLanguage: 'en',
          items: ['{"type":"page"}'],
        }),
        clock.ms,
      );
    expect(() => [...readJournal(a.controlDb, WEB, 0)]).toThrow(
      /ingest_journal entry \d+ \(items\) is not valid: .*items\.0/s,
    );
  });
});
