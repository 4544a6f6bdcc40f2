import { readdirSync, readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { BACKGROUND_NICENESS, currentThreadId } from '../../../src/platform/threads/priority.js';
import { workerModuleUrl } from '../../../src/platform/threads/worker-url.js';
import { poll } from '../../helpers/until.js';
import { startGraphReader, startWrittenCheckWorker } from './helpers.js';

// Thread priorities are a Linux matter (/proc/thread-self, setpriority on a thread id); elsewhere
// lowerThreadPriority leaves every thread as it is, which the first test checks there.
const linux = process.platform === 'linux';
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** The niceness of each thread of this process, by thread id (field 19 of /proc/self/task/<tid>/stat). */
function threadNiceness(): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      out.set(Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}

/**
 * Threads at BACKGROUND_NICENESS that were not there in `before`, waited for up to 5 s (a worker
 * lowers itself as its module loads; nothing announces that to this thread, so /proc is looked
 * at again every 20 ms).
 */
async function newBackgroundThreads(before: Map<number, number>): Promise<number[]> {
  const found = () =>
    [...threadNiceness()].filter(([tid, nice]) => !before.has(tid) && nice === BACKGROUND_NICENESS).map(([tid]) => tid);
  return poll(() => (found().length > 0 ? found() : undefined), 'a new thread at BACKGROUND_NICENESS', {
    timeoutMs: 5000,
  }).catch(() => found());
}

describe('lowerThreadPriority (runs the build: npm run build)', () => {
  it('lowers the calling thread alone, to the niceness asked, and never raises it again', async () => {
    const built = workerModuleUrl(
      new URL('../../../src/platform/threads/priority.ts', import.meta.url).href,
      'priority.js',
      'the priority module',
    );
    const mainBefore = linux ? threadNiceness().get(currentThreadId()!) : undefined;
    const worker = new Worker(
      `const { parentPort } = require('node:worker_threads');
       const { getPriority } = require('node:os');
       import(${JSON.stringify(built.href)}).then((m) => {
         const tid = m.currentThreadId();
         const before = tid === null ? null : getPriority(tid);
         const lowered = m.lowerThreadPriority();
         const after = tid === null ? null : getPriority(tid);
         const raised = m.lowerThreadPriority(${BACKGROUND_NICENESS - 3});
         parentPort.postMessage({ tid, pid: process.pid, before, lowered, after, raised, afterRaise: tid === null ? null : getPriority(tid) });
       });`,
      { eval: true },
    );
    const answer = await new Promise<Record<string, number | boolean | null>>((resolve, reject) =>
      worker.once('message', resolve).once('error', reject),
    );
    await worker.terminate();
    if (!linux) {
      expect(answer).toMatchObject({ tid: null, lowered: false, raised: false });
      return;
    }
    expect(answer.tid).not.toBe(answer.pid); // a worker is a thread of its own
    expect(answer.before).toBe(mainBefore);
    expect(answer).toMatchObject({
      lowered: true,
      after: BACKGROUND_NICENESS,
      raised: false,
      afterRaise: BACKGROUND_NICENESS,
    });
    // The calling thread and the process's other threads keep their priority.
    expect(threadNiceness().get(currentThreadId()!)).toBe(mainBefore);
  });
});

describe("a publish's helper threads run below the compile's priority (runs the build)", () => {
  it('the graph reading thread runs at BACKGROUND_NICENESS from its start, the compiling thread as it was', async () => {
    if (!linux) return expect(currentThreadId()).toBeNull();
    const before = threadNiceness();
    const reader = await startGraphReader(cleanups);
    // open() resolves once the thread is ready, and it lowered itself before that.
    const lowered = [...threadNiceness()].filter(([tid, nice]) => !before.has(tid) && nice === BACKGROUND_NICENESS);
    expect(lowered).toHaveLength(1);
    expect(threadNiceness().get(currentThreadId()!)).toBe(before.get(currentThreadId()!));
    expect(reader.languages().length).toBeGreaterThan(0); // and it still reads
  });

  it("the written-node check's worker runs at BACKGROUND_NICENESS once the check moved to it", async () => {
    if (!linux) return expect(currentThreadId()).toBeNull();
    const before = threadNiceness();
    const check = startWrittenCheckWorker(cleanups);
    expect(check.inWorker).toBe(true);
    expect(await newBackgroundThreads(before)).toHaveLength(1);
    expect(threadNiceness().get(currentThreadId()!)).toBe(before.get(currentThreadId()!));
  });
});
