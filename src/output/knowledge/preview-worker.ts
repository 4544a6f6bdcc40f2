import { parentPort, workerData } from 'node:worker_threads';
import { isAppError } from '../../platform/errors/app-error.js';
import { SqliteGraphReader } from '../../ingest/graph/reader.js';
import { GRAPH_DB_OPTIONS } from '../../platform/storage/graph-db.js';
import { openDatabase } from '../../platform/storage/sqlite.js';
import type { WebsiteInfo } from '../../control/records/website-info.js';
import { compilePreview, type CompiledPreview } from './preview.js';
import { nameThread } from '../../platform/threads/thread-name.js';

/** What the calling thread sends (structured clone: plain data only). */
export interface PreviewWorkerInput {
  graphFile: string;
  site: WebsiteInfo;
  buildTime: string;
}

/** What the worker answers: one message, then it exits. */
export type PreviewWorkerMessage =
  | { kind: 'done'; preview: CompiledPreview }
  | { kind: 'app_error'; code: string; message: string; details?: Record<string, unknown> }
  | { kind: 'failed'; message: string; stack?: string };

/**
 * The worker side of a node preview: the compile reads the graph synchronously for seconds on a
 * large website, so it runs here, off the daemon's event loop. The graph is opened read-only and
 * read in one transaction, so the preview is one state of the graph even while ingestion writes.
 */
function main(input: PreviewWorkerInput): PreviewWorkerMessage {
  const db = openDatabase(input.graphFile, { ...GRAPH_DB_OPTIONS, readonly: true });
  try {
    db.exec('BEGIN');
    const preview = compilePreview(new SqliteGraphReader(db), input.site, input.buildTime);
    db.exec('COMMIT');
    return { kind: 'done', preview };
  } catch (error) {
    if (isAppError(error))
      return {
        kind: 'app_error',
        code: error.code,
        message: error.message,
        ...(error.details ? { details: error.details } : {}),
      };
    return { kind: 'failed', message: (error as Error)?.message ?? String(error), stack: (error as Error)?.stack };
  } finally {
    db.close();
  }
}

if (parentPort) {
  nameThread('nodectl-preview');
  parentPort.postMessage(main(workerData as PreviewWorkerInput));
}
