import { sharedExtractionPoolIfMade } from './extraction-pool.js';
import { sharedGraphWriterIfMade } from './graph-writer.js';

/** The threads endIdleIngestThreads ended. */
export interface EndedIngestThreads {
  extractionWorkers: number;
  graphWriter: boolean;
}

/**
 * Ends content.ingest's threads that have nothing to do now: the process's extraction workers
 * (warmed up or not) and its graph writer thread. Their heaps and SQLite cache stay resident while
 * they idle, so the daemon ends them before a publish compiles (docs/graph.md "A warm start");
 * the next batch starts them again.
 *
 * The daemon then gives what they freed back to the system (releaseFreedMemory): glibc keeps an
 * ended thread's freed memory resident otherwise (docs/performance.md, "Freed memory given back").
 */
export async function endIdleIngestThreads(): Promise<EndedIngestThreads> {
  const extractionWorkers = (await sharedExtractionPoolIfMade()?.endIdle()) ?? 0;
  const graphWriter = (await sharedGraphWriterIfMade()?.endIdle()) ?? false;
  return { extractionWorkers, graphWriter };
}
