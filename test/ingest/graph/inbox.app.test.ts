import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { graphInboxPath } from '../../../src/platform/storage/data-dir.js';
import { moveFromInbox } from '../../../src/ingest/graph/inbox.js';
import { sweepPendingRawItems } from '../../../src/ingest/endpoints/sweep.js';
import { createDeleteHarness, type DeleteHarness } from '../../output/publish/deletes-support.js';
import { acceptedRows } from '../../helpers/accepted-rows.js';
import { pageItem } from '../endpoints/support.js';

let h: DeleteHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function harness(): Promise<DeleteHarness> {
  return (h = await createDeleteHarness());
}

const graphOf = (x: DeleteHarness) => x.services.graphs.get(x.website.id);
const inboxOf = (x: DeleteHarness) => x.services.graphs.inbox(x.website.id);
const inboxRows = (x: DeleteHarness) =>
  inboxOf(x).prepare('SELECT * FROM inbox_items ORDER BY seq').all() as Array<Record<string, unknown>>;
const rawRows = (x: DeleteHarness) =>
  graphOf(x).prepare('SELECT item_id, raw_content_id, checksum, state FROM raw_items ORDER BY item_id').all() as Array<{
    item_id: string;
    raw_content_id: string;
    checksum: string;
    state: string;
  }>;

/** What ingest acknowledges goes to the inbox (src/ingest/graph/inbox.ts); content.ingest moves it into the graph. */
describe('the inbox', () => {
  it('holds what a push accepted until its job moves it into raw_items, then nothing', async () => {
    const x = await harness();
    await x.ingest([pageItem('a'), pageItem('b')]);
    expect(inboxRows(x).map((r) => r.item_id)).toEqual(['a', 'b']);
    expect(rawRows(x)).toEqual([]);
    expect(await x.runJobs()).toBe(1);
    expect(rawRows(x).map((r) => [r.item_id, r.state])).toEqual([
      ['a', 'processed'],
      ['b', 'processed'],
    ]);
    expect(inboxRows(x)).toEqual([]);
  });

  it('a move done twice changes nothing (a crash between the graph commit and the inbox delete)', async () => {
    const x = await harness();
    await x.ingest([pageItem('a')]);
    const [row] = inboxRows(x);
    await x.runJobs();
    const processed = rawRows(x);
    expect(processed).toMatchObject([{ item_id: 'a', state: 'processed', raw_content_id: row!.raw_content_id }]);
    // The row is back, as if the inbox's delete had been lost.
    const columns = Object.keys(row!);
    inboxOf(x)
      .prepare(`INSERT INTO inbox_items (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`)
      .run(row);
    expect(await moveFromInbox(graphOf(x), inboxOf(x), 'all')).toBe(1);
    expect(rawRows(x)).toEqual(processed);
    expect(inboxRows(x)).toEqual([]);
  });

  it('keeps the newer version of an item whichever of two jobs moves first', async () => {
    const x = await harness();
    await x.ingest([pageItem('a', 'first text')]);
    await x.ingest([pageItem('a', 'second text')]);
    const [older, newer] = inboxRows(x) as Array<{ raw_content_id: string }>;
    expect(older!.raw_content_id < newer!.raw_content_id).toBe(true);
    await moveFromInbox(graphOf(x), inboxOf(x), { rawContentIds: [newer!.raw_content_id] });
    await moveFromInbox(graphOf(x), inboxOf(x), { rawContentIds: [older!.raw_content_id] });
    expect(rawRows(x)).toEqual([
      {
        item_id: 'a',
        raw_content_id: newer!.raw_content_id,
        checksum: pageItem('a', 'second text').checksum,
        state: 'pending',
      },
    ]);
    expect(inboxRows(x)).toEqual([]);
    await x.runJobs();
    expect(rawRows(x)).toMatchObject([{ raw_content_id: newer!.raw_content_id, state: 'processed' }]);
  });

  it('an inbox made again beside its graph (the file lost) numbers past the versions the graph holds', async () => {
    const x = await harness();
    await x.ingest([pageItem('a', 'first text'), pageItem('b')]);
    await x.runJobs();
    x.services.graphs.release(x.website.id);
    for (const suffix of ['', '-wal', '-shm'])
      rmSync(`${graphInboxPath(x.services.layout, x.website.id)}${suffix}`, { force: true });
    await x.ingest([pageItem('a', 'second text')]);
    await x.runJobs();
    expect(rawRows(x).map((r) => [r.item_id, r.checksum, r.state])).toEqual([
      ['a', pageItem('a', 'second text').checksum, 'processed'],
      ['b', pageItem('b').checksum, 'processed'],
    ]);
  });

  it('a delete before the job tombstones the item in the inbox, and its job does not bring it back', async () => {
    const x = await harness();
    await x.ingest([pageItem('a'), pageItem('b')]);
    expect(await x.remove(['a'])).toMatchObject({ tombstoned: ['a'], not_found: [] });
    expect(inboxRows(x).map((r) => r.item_id)).toEqual(['b']);
    await x.runJobs();
    expect(rawRows(x).map((r) => [r.item_id, r.state])).toEqual([
      ['a', 'tombstoned'],
      ['b', 'processed'],
    ]);
    expect(inboxRows(x)).toEqual([]);
  });

  it('the sweep enqueues what the inbox holds when no job covers it (an enqueue that failed)', async () => {
    const x = await harness();
    await x.ingest([pageItem('a')]);
    x.services.controlDb.prepare("DELETE FROM jobs WHERE kind = 'content.ingest'").run();
    expect(sweepPendingRawItems(x.services)).toBe(1);
    expect(sweepPendingRawItems(x.services)).toBe(0);
    await x.runJobs();
    expect(acceptedRows(x.services.graphs, x.website.id).map((r) => [r.item_id, r.state])).toEqual([
      ['a', 'processed'],
    ]);
  });
});
