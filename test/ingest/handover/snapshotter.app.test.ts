import { afterEach, describe, expect, it } from 'vitest';
import {
  createSnapshotter,
  readSnapshotRecord,
  type HandoverDeps,
  type SnapshotOutcome,
} from '../../../src/ingest/handover/snapshots.js';
import { readJournal } from '../../../src/ingest/handover/journal.js';
import { createFsTarget } from '../../../src/output/publish/targets/fs.js';
import type { Logger } from '../../../src/platform/log/logger.js';
import { makeTempDir } from '../../helpers/paths.js';
import { cleanups, CONTROL_STORES, daemon, item, runCleanups, WEB } from './support.js';

/** The coalescing snapshotter (createSnapshotter): one snapshot per website at a time, one more for what came during it. */
afterEach(runCleanups);

interface Call {
  websiteId: string;
  token: number;
  finish(outcome?: SnapshotOutcome | Error): void;
}

/** A take that waits for the test to finish each call, recording how many run at once. */
function controlledTake() {
  const calls: Call[] = [];
  let running = 0;
  let mostAtOnce = 0;
  const waiters: Array<() => void> = [];
  const take = (_deps: HandoverDeps, websiteId: string, token: number) =>
    new Promise<SnapshotOutcome>((resolve, reject) => {
      running++;
      mostAtOnce = Math.max(mostAtOnce, running);
      calls.push({
        websiteId,
        token,
        finish: (outcome = { status: 'refused', reason: 'behind' }) => {
          running--;
          if (outcome instanceof Error) reject(outcome);
          else resolve(outcome);
        },
      });
      for (const wake of waiters.splice(0)) wake();
    });
  /** Resolves once `n` calls were made. */
  const untilCalls = (n: number) =>
    new Promise<void>((resolve) => {
      const check = () => (calls.length >= n ? resolve() : waiters.push(check));
      check();
    });
  return { take, calls, untilCalls, mostAtOnce: () => mostAtOnce };
}

function recordingLogger() {
  const errors: Array<{ context: object; message?: string }> = [];
  const logger: Logger = {
    info() {},
    warn() {},
    debug() {},
    error: (context, message) => errors.push({ context, message }),
  };
  return { logger, errors };
}

describe('the snapshotter', () => {
  it('runs one snapshot per website at a time; requests during one make exactly one more, with the latest token', async () => {
    const { take, calls, untilCalls, mostAtOnce } = controlledTake();
    const { logger } = recordingLogger();
    const snapshotter = createSnapshotter({ logger } as HandoverDeps, take);
    snapshotter.request(WEB, 1);
    snapshotter.request('web_other', 1);
    await untilCalls(2);
    snapshotter.request(WEB, 1);
    snapshotter.request(WEB, 2);
    snapshotter.request(WEB, 3);
    expect(calls.map((c) => [c.websiteId, c.token])).toEqual([
      [WEB, 1],
      ['web_other', 1],
    ]);
    calls[0]!.finish();
    await untilCalls(3);
    expect(calls[2]).toMatchObject({ websiteId: WEB, token: 3 });
    calls[1]!.finish();
    calls[2]!.finish();
    await snapshotter.idle();
    expect(calls).toHaveLength(3);
    // Two websites at once, never two of one.
    expect(mostAtOnce()).toBe(2);
  });

  it('logs a failed snapshot instead of throwing it, and the next request runs again', async () => {
    const { take, calls, untilCalls } = controlledTake();
    const { logger, errors } = recordingLogger();
    const snapshotter = createSnapshotter({ logger } as HandoverDeps, take);
    snapshotter.request(WEB, 1);
    await untilCalls(1);
    calls[0]!.finish(new Error('upload failed: disk full'));
    await snapshotter.idle();
    expect(errors).toHaveLength(1);
    expect(errors[0]!.context).toMatchObject({
      websiteId: WEB,
      token: 1,
      err: expect.objectContaining({ message: 'upload failed: disk full' }),
    });
    snapshotter.request(WEB, 1);
    await untilCalls(2);
    calls[1]!.finish({ status: 'recorded', objectKey: 'k', journalSeq: 1, bytes: 1, pruned: 1 });
    await snapshotter.idle();
    expect(errors).toHaveLength(1);
  });

  it.each(CONTROL_STORES)(
    'takes real snapshots on $name: requests during one coalesce into one more',
    async (store) => {
      const connect = await store.connect();
      const nodes = makeTempDir('nodectl-handover-nodes-');
      cleanups.push(() => nodes.cleanup());
      const a = daemon('a', connect(), createFsTarget({ root: nodes.dir }));
      const token = await a.acquire();
      a.accept(token, [item('1')]);
      const snapshotter = createSnapshotter(a);
      snapshotter.request(WEB, token);
      a.accept(token, [item('2')]);
      snapshotter.request(WEB, token);
      snapshotter.request(WEB, token);
      await snapshotter.idle();
      // The second run held item 2's entry: the journal is empty and the latest object alone remains.
      expect([...readJournal(a.controlDb, WEB, 0)]).toEqual([]);
      const record = readSnapshotRecord(a.controlDb, WEB);
      expect(await a.snapshots.list(`_graphs/${WEB}/`)).toEqual([record!.objectKey]);
    },
  );
});
