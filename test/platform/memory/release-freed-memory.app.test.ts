import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { releaseFreedMemory, runsOnGlibc } from '../../../src/platform/memory/index.js';

const MB = 1_048_576;
const PAIRS = 6_000;
const BLOCK_BYTES = 16_000; // under glibc's mmap threshold: from the thread's arena

/**
 * A thread that allocates blocks in pairs, keeps one of each pair and hands the other to the main
 * thread, then ends: what it kept is freed at its end, between live blocks the main thread holds,
 * which glibc cannot give back on free (the ended graph writer's page cache, in small).
 */
async function threadThatLeavesFreedMemory(): Promise<ArrayBuffer[]> {
  const worker = new Worker(
    `const { parentPort } = require('node:worker_threads');
     const kept = [], handed = [];
     for (let i = 0; i < ${PAIRS}; i++) {
       kept.push(new Uint8Array(${BLOCK_BYTES}).fill(1));
       handed.push(new Uint8Array(${BLOCK_BYTES}).fill(2).buffer);
     }
     parentPort.postMessage(handed, handed);`,
    { eval: true },
  );
  const [handed] = (await once(worker, 'message')) as [ArrayBuffer[]];
  await once(worker, 'exit');
  return handed;
}

describe('releaseFreedMemory', () => {
  it('gives back what an ended thread freed and glibc kept resident (null where there is no glibc)', async () => {
    const handed = await threadThatLeavesFreedMemory();
    const released = await releaseFreedMemory();
    if (!runsOnGlibc()) {
      expect(released).toBeNull();
      return;
    }
    expect(released).not.toBeNull();
    const freed = (PAIRS * BLOCK_BYTES) / MB; // 92 MB freed at the thread's end; whole pages of it go back
    expect((released!.rssBeforeBytes - released!.rssAfterBytes) / MB).toBeGreaterThan(freed / 2);
    expect(handed).toHaveLength(PAIRS); // still held: the blocks that kept the freed ones resident
    expect(released!.ms).toBeGreaterThanOrEqual(0);
  });
});
