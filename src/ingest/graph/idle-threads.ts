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
 */
export async function endIdleIngestThreads(): Promise<EndedIngestThreads> {
  const [extractionWorkers = 0, graphWriter = false] = await Promise.all([
    sharedExtractionPoolIfMade()?.endIdle(),
    sharedGraphWriterIfMade()?.endIdle(),
  ]);
  return { extractionWorkers, graphWriter };
}
