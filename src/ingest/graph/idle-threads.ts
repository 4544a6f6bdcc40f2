import { sharedExtractionPoolIfMade } from './extraction-pool.js';
import { sharedGraphWriterIfMade } from './graph-writer.js';

/** The threads endIdleIngestThreads ended. */
export interface EndedIngestThreads {
  extractionWorkers: number;
  graphWriter: boolean;
  /** The page cache the ended writer thread could hold, in KiB (0 when none ended). */
  graphWriterCacheKib: number;
}

/**
 * Ends content.ingest's threads that have nothing to do now: the process's extraction workers
 * (warmed up or not) and its graph writer thread. Their heaps and SQLite cache stay resident while
 * they idle, so the daemon ends them before a publish compiles (docs/graph.md "A warm start");
 * the next batch starts them again.
 *
 * The writer ends last: glibc keeps what an ended thread freed in its arena, and gives that arena
 * to the next thread that starts, so the thread started next (the publish's) reuses the memory of
 * the writer's page cache rather than adding its own (docs/performance.md, "The publish in the ended
 * writer's memory").
 */
export async function endIdleIngestThreads(): Promise<EndedIngestThreads> {
  const extractionWorkers = (await sharedExtractionPoolIfMade()?.endIdle()) ?? 0;
  const writer = sharedGraphWriterIfMade();
  const cacheKib = writer?.cacheKib() ?? 0;
  const graphWriter = (await writer?.endIdle()) ?? false;
  return { extractionWorkers, graphWriter, graphWriterCacheKib: graphWriter ? cacheKib : 0 };
}
