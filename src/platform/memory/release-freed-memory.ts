import { runsOnGlibc } from './glibc.js';

/** What one releaseFreedMemory did: the process's resident memory around it. */
export interface ReleasedMemory {
  rssBeforeBytes: number;
  rssAfterBytes: number;
  ms: number;
}

type MallocTrim = (pad: number, done: (error: unknown, result: number) => void) => void;

/** glibc's malloc_trim, run on libuv's thread pool; null where there is none (asked once). */
let mallocTrim: Promise<MallocTrim | null> | undefined;

async function loadMallocTrim(): Promise<MallocTrim | null> {
  if (process.platform !== 'linux' || !runsOnGlibc()) return null;
  try {
    // An FFI call rather than an addon of ours: koffi ships its binary for each platform (docs/decisions.md).
    const { default: koffi } = await import('koffi');
    const trim = koffi.load('libc.so.6').func('int malloc_trim(size_t pad)');
    return (pad, done) => trim.async(pad, done);
  } catch {
    return null;
  }
}

/**
 * Gives the system back the memory this process's allocator holds freed: glibc keeps what a
 * thread freed in that thread's arena, resident, wherever a live block sits above it, and an ended
 * thread's arena is reused only by the next thread that starts (docs/performance.md, "Freed memory
 * given back"). The daemon calls it once threads that held much have ended: its idle ingest
 * threads before a publish, a publish's thread after it. Runs off the event loop; resolves null
 * where the allocator has no such call (not glibc, or the FFI library would not load).
 */
export async function releaseFreedMemory(): Promise<ReleasedMemory | null> {
  mallocTrim ??= loadMallocTrim();
  const trim = await mallocTrim;
  if (trim === null) return null;
  const started = performance.now();
  const rssBeforeBytes = process.memoryUsage.rss();
  await new Promise<void>((resolve) => trim(0, () => resolve()));
  return { rssBeforeBytes, rssAfterBytes: process.memoryUsage.rss(), ms: performance.now() - started };
}
