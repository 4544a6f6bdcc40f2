import { parentPort } from 'node:worker_threads';
import { GRAPH_DB_OPTIONS, KeptConnections, openDatabase } from '../../platform/storage/index.js';
import { nameThread } from '../../platform/threads/index.js';
import type { CheckpointRequest, CheckpointResponse } from './wal-checkpoints.js';

/** Each graph file's connection, closed a second after its last checkpoint. */
const connections = new KeptConnections((file) => openDatabase(file, GRAPH_DB_OPTIONS), 1000);

/**
 * The graph writer thread's checkpoint thread (wal-checkpoints.ts): copies a graph's WAL into its
 * file while the writer goes on writing. PASSIVE waits for nobody: frames written meanwhile are
 * left for the next request.
 */
if (parentPort) nameThread('nodectl-checkpoint');
parentPort?.on('message', ({ file }: CheckpointRequest) => {
  let response: CheckpointResponse;
  try {
    const [result] = connections.get(file).pragma('wal_checkpoint(PASSIVE)') as Array<{
      log: number;
      checkpointed: number;
    }>;
    response = { file, log: result!.log, checkpointed: result!.checkpointed };
  } catch (error) {
    response = { file, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(response);
});
