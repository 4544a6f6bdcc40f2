import { readdirSync, readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { createExtractionPool, extractWorkerUrl } from '../../../src/ingest/graph/extraction-pool.js';
import { createGraphWriter, writeWorkerUrl } from '../../../src/ingest/graph/graph-writer.js';
import { publishWorkerUrl } from '../../../src/output/publish/publish-in-worker.js';
import { workerModuleUrl } from '../../../src/platform/threads/worker-url.js';
import { poll } from '../../helpers/until.js';
import { startGraphReader, startWrittenCheckWorker } from './helpers.js';

// Thread names are a Linux matter (/proc/thread-self/comm); elsewhere nameThread changes nothing,
// which the first test checks there.
const linux = process.platform === 'linux';
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** The names of this process's threads (/proc/self/task/<tid>/comm). */
function threadNames(): string[] {
  return readdirSync('/proc/self/task').flatMap((tid) => {
    try {
      return [readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim()];
    } catch {
      return []; // the thread ended between the listing and the read
    }
  });
}

/**
 * Waits up to 5 s for a thread named `name` (a worker names itself as its module loads). Nothing
 * announces that moment to this thread, so /proc is looked at again every 20 ms.
 */
async function threadNamed(name: string): Promise<boolean> {
  return poll(() => (threadNames().includes(name) ? true : undefined), `a thread named ${name}`, {
    timeoutMs: 5000,
  }).catch(() => false);
}

describe('nameThread (runs the build: npm run build)', () => {
  it('names the calling thread, cut to the 15 bytes Linux keeps, and no other', async () => {
    const built = workerModuleUrl(
      new URL('../../../src/platform/threads/thread-name.ts', import.meta.url).href,
      'thread-name.js',
      'the thread-name module',
    );
    const own = linux ? readFileSync('/proc/thread-self/comm', 'utf8') : null;
    const worker = new Worker(
      `const { parentPort } = require('node:worker_threads');
       const { readFileSync } = require('node:fs');
       import(${JSON.stringify(built.href)}).then((m) => {
         const named = m.nameThread('nodectl-a-very-long-name');
         let name = null;
         try { name = readFileSync('/proc/thread-self/comm', 'utf8').trim(); } catch {}
         parentPort.postMessage({ named, name });
       });`,
      { eval: true },
    );
    cleanups.push(() => worker.terminate());
    const answer = await new Promise<{ named: boolean; name: string | null }>((resolve, reject) =>
      worker.once('message', resolve).once('error', reject),
    );
    if (!linux) return expect(answer).toEqual({ named: false, name: null });
    expect(answer).toEqual({ named: true, name: 'nodectl-a-very-' });
    expect(readFileSync('/proc/thread-self/comm', 'utf8')).toBe(own);
  });
});

describe("the daemon's worker threads name themselves (runs the build)", () => {
  it('the extraction worker, the graph writer, a publish worker, its graph reading thread and its check', async () => {
    if (!linux) return expect(threadNames).toThrow();
    const pool = createExtractionPool({ size: 1, workerUrl: extractWorkerUrl() });
    const writer = createGraphWriter({ workerUrl: writeWorkerUrl() });
    const publish = new Worker(publishWorkerUrl()); // a spare: it waits for its input
    cleanups.push(
      () => pool.close(),
      () => writer.close(),
      () => publish.terminate(),
    );
    await pool.warmUp(1);
    writer.start();
    expect(await threadNamed('nodectl-extract')).toBe(true);
    expect(await threadNamed('nodectl-writer')).toBe(true);
    expect(await threadNamed('nodectl-publish')).toBe(true);

    await startGraphReader(cleanups);
    expect(threadNames()).toContain('nodectl-reader');

    startWrittenCheckWorker(cleanups);
    expect(await threadNamed('nodectl-check')).toBe(true);
  });
});
