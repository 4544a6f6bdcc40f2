import { parentPort, workerData } from 'node:worker_threads';
import { nameThread } from '../../platform/threads/index.js';
import { DISCARDING_SINK, type WrittenFile } from '../sink.js';
import type { ValidationReport } from './validate-node.js';
import { WrittenNodeCheck } from './written-node.js';

/** What the compiling thread sends, in the order its sink saw it. */
export type WrittenCheckEvent =
  | { kind: 'open'; path: string }
  | { kind: 'write'; path: string; chunk: Uint8Array }
  | { kind: 'close'; path: string; written: WrittenFile }
  | { kind: 'report' };

/** What this worker answers: the report once asked, or why it could not check. */
export type WrittenCheckAnswer = { kind: 'report'; report: ValidationReport } | { kind: 'failed'; message: string };

export interface WrittenCheckWorkerData {
  location: string;
  recordsPassedSchemas: boolean;
  /** As WrittenNodeCheck's options. */
  folder?: string;
  websiteId?: string;
  /**
   * Int32Array over it: [0] write events posted and not yet scanned (this thread takes one off per
   * chunk and wakes the compiling thread, which waits while too many are queued), [1] set to 1 once
   * this worker has failed, so a compiling thread waiting for room stops waiting, [2] counts up
   * while this worker reads a file back from the folder (it scans no chunk meanwhile).
   */
  flow: SharedArrayBuffer;
}

/**
 * The worker side of ParallelWrittenNodeCheck (written-node-thread.ts): a WrittenNodeCheck fed the
 * compiling thread's events, so the bytes are scanned on another core while the compile goes on.
 */
function main(data: WrittenCheckWorkerData, post: (answer: WrittenCheckAnswer) => void): void {
  const flow = new Int32Array(data.flow);
  const check = new WrittenNodeCheck(data.location, {
    recordsPassedSchemas: data.recordsPassedSchemas,
    ...(data.folder === undefined ? {} : { folder: data.folder }),
    ...(data.websiteId === undefined ? {} : { websiteId: data.websiteId }),
    onReadBack: () => void Atomics.add(flow, 2, 1),
  });
  const sink = check.sink(DISCARDING_SINK);
  const open = new Map<string, ReturnType<typeof sink.open>>();
  let failed = false;
  const fail = (error: unknown) => {
    failed = true;
    Atomics.store(flow, 1, 1);
    Atomics.notify(flow, 0);
    post({ kind: 'failed', message: (error as Error)?.message ?? String(error) });
  };
  parentPort!.on('message', (event: WrittenCheckEvent) => {
    if (failed) return;
    try {
      if (event.kind === 'open') open.set(event.path, sink.open(event.path));
      else if (event.kind === 'write') {
        open.get(event.path)!.write(event.chunk);
        Atomics.sub(flow, 0, 1);
        Atomics.notify(flow, 0);
      } else if (event.kind === 'close') open.get(event.path)!.close(event.written);
      else void check.report().then((report) => post({ kind: 'report', report }), fail);
    } catch (error) {
      fail(error);
    }
  });
}

if (parentPort) {
  nameThread('nodectl-check');
  const port = parentPort;
  main(workerData as WrittenCheckWorkerData, (answer) => port.postMessage(answer));
}
