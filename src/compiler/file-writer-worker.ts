import { createHash, type Hash } from 'node:crypto';
import { writeSync } from 'node:fs';
import { workerData, type MessagePort } from 'node:worker_threads';
import { nameThread } from '../platform/threads/index.js';
import {
  BATCH_BYTES,
  FLOW,
  type WriterAnswer,
  type WriterAsk,
  type WriterFailure,
  type WriterWorkerData,
} from './file-writer.js';

/**
 * The writing thread of FileWriterThread (file-writer.ts): appends each batch of a file's bytes
 * to its descriptor and hashes them, in the order the compiling thread posted them, then frees
 * the batch. A file whose write failed takes no more bytes; its failure is the answer to its
 * `finish`.
 */
const data = workerData as WriterWorkerData;
const { port } = data;
const flow = new Int32Array(data.flow);
const taken = new Int32Array(data.taken);
nameThread('nodectl-files');

interface OpenFile {
  fd: number;
  hash: Hash;
  failure: WriterFailure | null;
}

const files = new Map<number, OpenFile>();

function answer(message: WriterAnswer): void {
  port.postMessage(message);
  Atomics.add(flow, FLOW.answers, 1);
  Atomics.notify(flow, FLOW.answers);
}

function write(file: OpenFile | undefined, id: number, bytes: Uint8Array): void {
  if (file === undefined || file.failure !== null) return;
  try {
    for (let done = 0; done < bytes.length;) done += writeSync(file.fd, bytes, done);
    file.hash.update(bytes);
  } catch (error) {
    file.failure = failureOf(error);
    // The compiling thread looks for it before its next batch of this file: a full disk stops the compile there.
    Atomics.store(flow, FLOW.failedFile, id);
  }
}

/** What the compiling thread needs to throw the same error: its message and the errno fields storage faults are told by. */
function failureOf(error: unknown): WriterFailure {
  const e = error as NodeJS.ErrnoException;
  return {
    message: e instanceof Error ? e.message : String(error),
    ...(typeof e?.code === 'string' ? { code: e.code } : {}),
    ...(typeof e?.errno === 'number' ? { errno: e.errno } : {}),
    ...(typeof e?.syscall === 'string' ? { syscall: e.syscall } : {}),
  };
}

(port as MessagePort).on('message', (ask: WriterAsk) => {
  switch (ask.kind) {
    case 'open':
      files.set(ask.file, { fd: ask.fd, hash: createHash('sha256'), failure: null });
      return;
    case 'write':
      try {
        write(files.get(ask.file), ask.file, new Uint8Array(data.batches, ask.batch * BATCH_BYTES, ask.length));
      } finally {
        Atomics.store(taken, ask.batch, 0);
        Atomics.add(flow, FLOW.written, 1);
        Atomics.notify(flow, FLOW.written);
      }
      return;
    case 'finish': {
      const file = files.get(ask.file);
      files.delete(ask.file);
      if (file === undefined) answer({ file: ask.file, failure: { message: `file ${ask.file} is not open` } });
      else if (file.failure !== null) answer({ file: ask.file, failure: file.failure });
      else answer({ file: ask.file, checksum: file.hash.digest('hex') });
      return;
    }
    case 'drop':
      for (const id of ask.files) files.delete(id);
      answer({ file: -1, dropped: ask.files.length });
      return;
  }
});
// Not an answer: it is not counted, so no ask can take the count's rise for its own answer.
port.postMessage({ file: -1, ready: true } satisfies WriterAnswer);
