import { afterEach, describe, expect, it } from 'vitest';
import { acceptItems } from '../../../src/ingest/endpoints/accept.js';
import { beginWriterTurn, endWriterTurn, writeTurnOf } from '../../../src/ingest/graph/write-turn.js';
import { createDeleteHarness, type DeleteHarness } from '../../output/publish/deletes-support.js';
import { pageItem } from './support.js';
import { acceptedRows } from '../../helpers/accepted-rows.js';

let h: DeleteHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/**
 * While the graph writer thread is in a transaction on the website's graph file (its side of the
 * write turn held here), every push is answered: a re-push of unchanged or tombstoned items from
 * a read, a batch with something new from a write to the inbox, which is a file of its own
 * (src/ingest/graph/inbox.ts; docs/performance.md, issue 40 items 1 and 3).
 */
describe('a push while the graph writer holds the file', () => {
  it('answers unchanged and tombstoned items from a read, and writes a changed one to the inbox, without the turn', async () => {
    h = await createDeleteHarness();
    const harness = h;
    const items = [pageItem('a'), pageItem('b'), pageItem('c')];
    await harness.ingest(items);
    await harness.remove(['c']);
    await harness.runJobs();
    const push = (rawItems: Array<Record<string, unknown>>) =>
      acceptItems({
        services: harness.services,
        website: harness.website,
        connectorId: 'conn_1',
        rawItems,
        partial: true,
        endpoint: 'batch',
      });

    const turn = writeTurnOf(harness.services.graphs.get(harness.website.id));
    beginWriterTurn(turn);
    try {
      const again = await push(items);
      expect(again.results.map((r) => [r.id, r.status, r.reason])).toEqual([
        ['a', 'skipped', 'unchanged_checksum'],
        ['b', 'skipped', 'unchanged_checksum'],
        ['c', 'skipped', 'tombstoned'],
      ]);
      expect(again).toMatchObject({ received: 3, accepted: 0, skipped: 3, errored: 0 });
      const changed = await push([items[0]!, pageItem('b', 'new text of b')]);
      expect(changed.results.map((r) => [r.id, r.status])).toEqual([
        ['a', 'skipped'],
        ['b', 'accepted'],
      ]);
      // The new version in the inbox is what the next push is compared with.
      const repeated = await push([pageItem('b', 'new text of b'), pageItem('c', 'new text of c')]);
      expect(repeated.results.map((r) => [r.id, r.status, r.reason])).toEqual([
        ['b', 'skipped', 'unchanged_checksum'],
        ['c', 'skipped', 'tombstoned'],
      ]);
    } finally {
      endWriterTurn(turn);
    }
    expect(
      acceptedRows(harness.services.graphs, harness.website.id).map((r) => [r.item_id, r.state, r.checksum]),
    ).toEqual([
      ['a', 'processed', pageItem('a').checksum],
      ['b', 'inbox', pageItem('b', 'new text of b').checksum],
      ['c', 'tombstoned', pageItem('c').checksum],
    ]);
  });

  it('an item twice in one batch, the first time new: both decided in the write transaction as before', async () => {
    h = await createDeleteHarness();
    const harness = h;
    const result = await acceptItems({
      services: harness.services,
      website: harness.website,
      connectorId: 'conn_1',
      rawItems: [pageItem('a'), pageItem('a')],
      partial: true,
      endpoint: 'batch',
    });
    expect(result.results.map((r) => [r.status, r.reason])).toEqual([
      ['accepted', undefined],
      ['skipped', 'unchanged_checksum'],
    ]);
  });
});
