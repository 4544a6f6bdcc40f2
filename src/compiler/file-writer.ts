import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { workerModuleUrl } from '../platform/threads/index.js';

/** The slots of the Int32Array both threads share. */
export const FLOW = {
  /** Batches written so far: the compile waits on it for a free batch, and tells a stalled thread by it. */
  written: 0,
  /** Answers posted: the compiling thread waits on it for the one it asked for. */
  answers: 1,
  /** The last file whose write failed (0: none). */
  failedFile: 2,
} as const;

/**
 * The batches both threads share: a file's bytes are gathered in one, which the writing thread
 * writes and hashes, then frees. Allocated once: a fresh buffer a batch cost the compiling thread
 * more in page faults than the copy itself (docs/performance.md, stop 71).
 */
export const BATCHES = 32;
export const BATCH_BYTES = 256 * 1024;

export interface WriterWorkerData {
  port: MessagePort;
  flow: SharedArrayBuffer;
  /** BATCHES batches of BATCH_BYTES. */
  batches: SharedArrayBuffer;
  /** An Int32Array of BATCHES: 1 while a batch is the compiling thread's or waits to be written, 0 once free. */
  taken: SharedArrayBuffer;
}

export type WriterAsk =
  | { kind: 'open'; file: number; fd: number }
  | { kind: 'write'; file: number; batch: number; length: number }
  | { kind: 'finish'; file: number }
  | { kind: 'drop'; files: number[] };

/** A failed write as the compiling thread throws it again: the errno fields tell a full disk (storage-fault.ts). */
export interface WriterFailure {
  message: string;
  code?: string;
  errno?: number;
  syscall?: string;
}

export type WriterAnswer =
  | { file: number; checksum: string }
  | { file: number; failure: WriterFailure }
  | { file: -1; dropped: number }
  | { file: -1; ready: true };

/** A writing thread that writes nothing for this long while the compile waits is taken to be gone. */
const STALL_MS = 120_000;

/**
 * A thread that writes and hashes the files a compile produces, so the compiling thread (which
 * is synchronous, and during a republish mostly copies lines) spends none of its time in sha256
 * or in write(2) while the other core waits (the profile is in docs/performance.md, stop 71). One
 * per thread that compiles, started on first use and kept (unref'd): files of any number of
 * compiles go through it, each answered in turn.
 */
export class FileWriterThread {
  private nextFile = 1;
  private readonly views: Uint8Array[];
  private readonly taken: Int32Array;

  private constructor(
    private readonly port: MessagePort,
    private readonly flow: Int32Array,
    data: WriterWorkerData,
  ) {
    this.views = Array.from({ length: BATCHES }, (_, k) => new Uint8Array(data.batches, k * BATCH_BYTES, BATCH_BYTES));
    this.taken = new Int32Array(data.taken);
  }

  /** Starts a writing thread and waits until it takes files; rejects when it cannot start. */
  static async start(url: URL = fileWriterWorkerUrl()): Promise<FileWriterThread> {
    const { port1, port2 } = new MessageChannel();
    const data: WriterWorkerData = {
      port: port2,
      flow: new SharedArrayBuffer(4 * Object.keys(FLOW).length),
      batches: new SharedArrayBuffer(BATCHES * BATCH_BYTES),
      taken: new SharedArrayBuffer(4 * BATCHES),
    };
    const worker = new Worker(url, { workerData: data, transferList: [port2] });
    try {
      await new Promise<void>((resolve, reject) => {
        const ready = setInterval(() => {
          const message = receiveMessageOnPort(port1)?.message as WriterAnswer | undefined;
          if (message !== undefined && 'ready' in message) {
            clearInterval(ready);
            resolve();
          }
        }, 2);
        worker.once('error', (error) => (clearInterval(ready), reject(error)));
        worker.once(
          'exit',
          (code) => (
            clearInterval(ready),
            reject(new Error(`the file writing thread exited (code ${code}) before it took a file`))
          ),
        );
      });
    } catch (error) {
      port1.close();
      await worker.terminate();
      throw error;
    }
    worker.removeAllListeners();
    const thread = new FileWriterThread(port1, new Int32Array(data.flow), data);
    worker.once('exit', () => {
      if (current === thread) shared = current = undefined;
    });
    // Kept for the next compile, it must not keep the process up.
    worker.unref();
    return thread;
  }

  /** A file to write through this thread: `fd` is open for writing, and stays the caller's to close. */
  open(fd: number): ThreadWrittenFile {
    const file = this.nextFile++;
    this.port.postMessage({ kind: 'open', file, fd } satisfies WriterAsk);
    return new ThreadWrittenFile(this, file);
  }

  /** A free batch (its number), waited for while every batch is taken. */
  takeBatch(): number {
    for (;;) {
      // Read first: a batch freed during the scan below ends the wait at once.
      const written = Atomics.load(this.flow, FLOW.written);
      for (let batch = 0; batch < BATCHES; batch++)
        if (Atomics.load(this.taken, batch) === 0) {
          // Only this thread takes a batch, only the writing thread frees one: no other taker to race.
          Atomics.store(this.taken, batch, 1);
          return batch;
        }
      this.waitWhile(FLOW.written, written);
    }
  }

  view(batch: number): Uint8Array {
    return this.views[batch]!;
  }

  /** Frees a batch that was never posted (a file dropped, or finished with nothing left in it). */
  freeBatch(batch: number): void {
    Atomics.store(this.taken, batch, 0);
  }

  /** Posts the first `length` bytes of `batch` to be appended to `file`: the writing thread frees the batch. */
  post(file: number, batch: number, length: number): void {
    this.port.postMessage({ kind: 'write', file, batch, length } satisfies WriterAsk);
    // A file whose write failed (a full disk) stops the compile here rather than at its close.
    if (Atomics.load(this.flow, FLOW.failedFile) === file) this.finish(file);
  }

  /** The sha256 (hex) of every byte of `file`, once all are written; throws what writing them threw. */
  finish(file: number): string {
    const answer = this.ask({ kind: 'finish', file });
    if ('checksum' in answer && answer.file === file) return answer.checksum;
    if ('failure' in answer) throw failureError(answer.failure);
    throw new Error(`the file writing thread answered ${JSON.stringify(answer)} for file ${file}`);
  }

  /** Forgets `files` (a compile that failed): once this returns, nothing more is written to their descriptors. */
  drop(files: number[]): void {
    if (files.length > 0) this.ask({ kind: 'drop', files });
  }

  private ask(ask: WriterAsk): WriterAnswer {
    const answers = Atomics.load(this.flow, FLOW.answers);
    this.port.postMessage(ask);
    this.waitWhile(FLOW.answers, answers);
    const received = receiveMessageOnPort(this.port);
    if (received === undefined) throw new Error('the file writing thread signalled an answer it did not send');
    return received.message as WriterAnswer;
  }

  /**
   * Blocks (the compile is synchronous) while slot `slot` still holds `value`, read before the
   * ask it waits on (a change in between ends the wait at once); throws when the thread writes no
   * batch for STALL_MS.
   */
  private waitWhile(slot: number, value: number): void {
    let written = Atomics.load(this.flow, FLOW.written);
    let since = Date.now();
    while (Atomics.wait(this.flow, slot, value, 1000) === 'timed-out') {
      const now = Atomics.load(this.flow, FLOW.written);
      if (now !== written) ((written = now), (since = Date.now()));
      else if (Date.now() - since > STALL_MS)
        throw new Error(`the file writing thread wrote nothing for ${STALL_MS / 1000} s`);
    }
  }
}

/** One file written through a FileWriterThread: its bytes gathered into the shared batches, hashed there. */
export class ThreadWrittenFile {
  private batch = -1;
  private bytes: Uint8Array | null = null;
  private used = 0;
  private done = false;

  constructor(
    private readonly thread: FileWriterThread,
    readonly id: number,
  ) {}

  /** Copies `chunk` into the file's batch (the caller keeps its buffer), posting each batch as it fills. */
  write(chunk: Uint8Array): void {
    for (let at = 0; at < chunk.length;) {
      if (this.bytes === null) this.bytes = this.thread.view((this.batch = this.thread.takeBatch()));
      const n = Math.min(chunk.length - at, BATCH_BYTES - this.used);
      this.bytes.set(n === chunk.length ? chunk : chunk.subarray(at, at + n), this.used);
      this.used += n;
      at += n;
      if (this.used === BATCH_BYTES) this.post();
    }
  }

  /** The sha256 (hex) of every byte written, once the thread wrote them all. */
  digest(): string {
    if (this.used > 0) this.post();
    this.release();
    this.done = true;
    return this.thread.finish(this.id);
  }

  /** Whether digest() was asked for (the thread is done with the file). */
  get finished(): boolean {
    return this.done;
  }

  /** Frees the batch this file holds and has not posted (a file dropped). */
  release(): void {
    if (this.bytes !== null) this.thread.freeBatch(this.batch);
    this.bytes = null;
    this.used = 0;
  }

  private post(): void {
    const { batch, used } = this;
    this.bytes = null;
    this.used = 0;
    this.thread.post(this.id, batch, used);
  }
}

/** The error a failed write threw in the writing thread, with its errno fields. */
function failureError(failure: WriterFailure): Error {
  const { message, ...fields } = failure;
  return Object.assign(new Error(message), fields);
}

let shared: Promise<FileWriterThread> | undefined;
let current: FileWriterThread | undefined;

/** This thread's writing thread, started on first use (again after one that ended or failed to start). */
export function sharedFileWriter(): Promise<FileWriterThread> {
  shared ??= FileWriterThread.start().then(
    (thread) => (current = thread),
    (error: unknown) => {
      shared = undefined;
      throw error;
    },
  );
  return shared;
}

/**
 * The worker's module, next to this one in the build. Running from the sources (vitest), a worker
 * thread cannot load .ts: the build's copy is used, which must then be current (npm run build).
 */
export function fileWriterWorkerUrl(here: string = import.meta.url): URL {
  return workerModuleUrl(here, 'file-writer-worker.js', 'the file writing thread');
}
