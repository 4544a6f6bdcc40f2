import { readdirSync, readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { createExtractionPool, extractWorkerUrl } from '../../../src/ingest/graph/extraction-pool.js';
import { BACKGROUND_NICENESS, currentThreadId } from '../../../src/platform/threads/priority.js';
import { workerModuleUrl } from '../../../src/platform/threads/worker-url.js';

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

describe("content.ingest's extraction workers run below the event loop's priority (runs the build)", () => {
  it('an extraction worker runs at BACKGROUND_NICENESS once it answered, the calling thread as it was', async () => {
    if (!linux) return expect(currentThreadId()).toBeNull();
    const before = threadNiceness();
    const pool = createExtractionPool({ size: 1, workerUrl: extractWorkerUrl() });
    cleanups.push(() => pool.close());
    // The worker lowers itself as its module loads, before it takes its first request.
    await pool.warmUp(25);
    const lowered = [...threadNiceness()].filter(([tid, nice]) => !before.has(tid) && nice === BACKGROUND_NICENESS);
    expect(lowered).toHaveLength(1);
    expect(threadNiceness().get(currentThreadId()!)).toBe(before.get(currentThreadId()!));
  });
});
