import { describe, expect, it } from 'vitest';
import { splitPendingBatch } from '../../../src/ingest/graph/process-raw-items.js';
import type { PendingExtraction } from '../../../src/ingest/graph/extract-worker.js';
import type { RawRow } from '../../../src/ingest/graph/extract-row.js';

const row = (id: string) => ({ raw_content_id: id }) as RawRow;
const failed = (id: string) =>
  ({ code: 'item.unreadable', error: `bad ${id}` }) as PendingExtraction['outcomes'][number];

describe('splitPendingBatch (a batch in parts while pushes arrive)', () => {
  it('cuts the ids in order and gives each part the rows and outcomes of its own ids, leaving out ids no longer pending', () => {
    const batch = ['r1', 'r2', 'r3', 'r4', 'r5'];
    // r2 was no longer pending when extracted; the rows came back in another order.
    const extracted: PendingExtraction = {
      rows: ['r5', 'r1', 'r4', 'r3'].map(row),
      outcomes: ['r5', 'r1', 'r4', 'r3'].map(failed),
    };
    const parts = splitPendingBatch(batch, extracted, 2);
    expect(parts.map((p) => p.batch)).toEqual([['r1', 'r2'], ['r3', 'r4'], ['r5']]);
    expect(parts.map((p) => p.extracted.rows.map((r) => r.raw_content_id))).toEqual([['r1'], ['r3', 'r4'], ['r5']]);
    expect(parts.map((p) => p.extracted.outcomes)).toEqual([
      [failed('r1')],
      [failed('r3'), failed('r4')],
      [failed('r5')],
    ]);
  });

  it('keeps a batch no larger than a part whole', () => {
    const extracted: PendingExtraction = { rows: [row('r1')], outcomes: [failed('r1')] };
    expect(splitPendingBatch(['r1', 'r2'], extracted, 2)).toEqual([{ batch: ['r1', 'r2'], extracted }]);
  });
});
