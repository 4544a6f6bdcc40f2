import { afterEach, describe, expect, it } from 'vitest';
import { acceptItems } from '../../../src/ingest/endpoints/accept.js';
import { beginWriterTurn, endWriterTurn, writeTurnOf } from '../../../src/ingest/graph/write-turn.js';
import { createDeleteHarness, type DeleteHarness } from '../../output/publish/deletes-support.js';
import { pageItem } from './support.js';

let h: DeleteHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/**
 * While the graph writer thread is in a transaction on the website's graph file (its side of the
 * write turn held here), a re-push of unchanged or tombstoned items is answered from a read, and
 * a batch with one changed item waits for the turn (docs/performance.md, issue 40 item 3).
 */
describe('a re-push while the graph writer holds the file', () => {
  it('answers unchanged and tombstoned items without the turn; a batch with anything to write waits for it', async () => {
    h = await createDeleteHarness();
    const harness = h;
    const items = [pageItem('a'), pageItem('b'), pageItem('c')];
    await harness.ingest(items);
    await harness.remove(['c']);
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
    let changedDone = false;
    const changed = push([items[0]!, pageItem('b', 'new text of b')]).then((r) => ((changedDone = true), r));
    try {
      const again = await push(items);
      expect(again.results.map((r) => [r.id, r.status, r.reason])).toEqual([
        ['a', 'skipped', 'unchanged_checksum'],
        ['b', 'skipped', 'unchanged_checksum'],
        ['c', 'skipped', 'tombstoned'],
      ]);
      expect(again).toMatchObject({ received: 3, accepted: 0, skipped: 3, errored: 0 });
      expect(changedDone).toBe(false);
    } finally {
      endWriterTurn(turn);
    }
    const written = await changed;
    expect(written.results.map((r) => [r.id, r.status])).toEqual([
      ['a', 'skipped'],
      ['b', 'accepted'],
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
