import { close, closeSync, existsSync, fsync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { GraphReader } from '../ingest/graph/index.js';
import type { WebsiteInfo } from '../control/records/index.js';
import { compileNode } from './compile-node.js';
import { sharedFileWriter, type FileWriterThread, type ThreadWrittenFile } from './file-writer.js';
import { readPreviousNode } from './previous.js';
import type { NodeSink } from './sink.js';
import { PreviousOrderError } from './previous-lines.js';
import { SinceMismatch } from './compile-since.js';
import type { CompileOptions, CompileResult } from './types.js';

/** A directory's sink, and when what it wrote is on disk. */
export interface DirectorySink extends NodeSink {
  /** Resolves once every file closed so far is fsynced and closed; rejects with the first that failed. */
  flushed(): Promise<void>;
  /** After a failed compile: closes the files still open (unsynced) and waits for those being synced; never rejects. */
  abandon(): Promise<void>;
}

/**
 * A sink that writes each file into `dir` (which must exist). With `writer`, each file's bytes
 * are written and hashed by that thread (SinkFile.digest), off the compiling thread. A closed
 * file is fsynced and closed on libuv's thread pool while the compile goes on (the compile is
 * synchronous: in its thread the fsyncs waited for the disk one file after another); flushed()
 * waits for them.
 */
export function createDirectorySink(dir: string, writer?: FileWriterThread): DirectorySink {
  const syncing: Array<Promise<Error | null>> = [];
  const open = new Set<number>();
  const byThread = new Map<number, ThreadWrittenFile>();
  return {
    folder: dir,
    open(path) {
      if (path.includes('/') || path.includes('\\') || path.startsWith('.'))
        throw new Error(`refusing to write outside the node directory: ${path}`);
      const fd = openSync(join(dir, path), 'wx');
      open.add(fd);
      const close = () => {
        open.delete(fd);
        byThread.delete(fd);
        syncing.push(syncAndClose(fd));
      };
      if (writer === undefined)
        return {
          write: (chunk) => {
            for (let done = 0; done < chunk.length;) done += writeSync(fd, chunk, done);
          },
          close,
        };
      const file = writer.open(fd);
      byThread.set(fd, file);
      return {
        write: (chunk) => file.write(chunk),
        digest: () => file.digest(),
        close: () => {
          // A wrapping sink that hashed the bytes itself never asked: every byte must still be written.
          if (!file.finished) file.digest();
          close();
        },
      };
    },
    async flushed() {
      const failed = (await Promise.all(syncing)).find((error) => error !== null);
      if (failed) throw failed;
    },
    async abandon() {
      // The writing thread is done with a file once it answered its digest; the others it may still be writing.
      const unfinished = [...byThread.values()].filter((file) => !file.finished);
      for (const file of unfinished) file.release();
      byThread.clear();
      try {
        writer?.drop(unfinished.map((file) => file.id));
      } catch {
        // A writing thread that answers nothing: the compile's own error is the one to report.
      }
      for (const fd of open) {
        try {
          closeSync(fd);
        } catch {
          // Already gone: nothing to close.
        }
      }
      open.clear();
      await Promise.all(syncing);
    },
  };
}

/**
 * fsync then close `fd`; resolves with the first error (never rejects,
 * so a compile that fails first leaves no unhandled rejection).
 */
function syncAndClose(fd: number): Promise<Error | null> {
  return new Promise((resolve) =>
    fsync(fd, (syncError) => close(fd, (closeError) => resolve(syncError ?? closeError ?? null))),
  );
}

export interface CompileToDirectoryOptions extends CompileOptions {
  /**
   * A directory holding the previous version of this node (for changes.jsonl,
   * versions.json and the label); ignored when `previous` is given. Default: none.
   */
  previousDir?: string;
  /**
   * The sink the compiler writes through, around the directory's (a publish's
   * check of the bytes as written, written-node.ts). Default: the directory's.
   */
  wrapSink?: (sink: NodeSink) => NodeSink;
  /**
   * When the previous version's record files cannot be read alongside the compile
   * (PreviousOrderError), compile again with the same reader and that version's lines hashed up
   * front; when `since` did not describe it (SinceMismatch), compile again without `since`. False
   * for a reader that cannot read the graph a second time (the caller starts again with another,
   * compileStartingAgain). Default true.
   */
  startAgain?: boolean;
  /**
   * Write and hash the files on the file writing thread (file-writer.ts), off the compiling
   * thread: for a large graph's compile, as the reading thread is. Default false: for a small
   * node, starting the thread costs more than it saves.
   */
  writingThread?: boolean;
}

let sequence = 0;

/**
 * Compiles the node into `outDir` atomically: files are written into a sibling temp directory,
 * which then replaces `outDir` by rename, so a reader never sees half a node and a failed
 * compile (validation, uuid leak, I/O) leaves the old `outDir` untouched.
 */
export async function compileToDirectory(
  reader: GraphReader,
  site: WebsiteInfo,
  outDir: string,
  options: CompileToDirectoryOptions,
): Promise<CompileResult> {
  const target = resolve(outDir);
  const { previousDir, wrapSink, startAgain, writingThread, ...compileOptions } = options;
  if (compileOptions.previous === undefined && previousDir !== undefined)
    compileOptions.previous = await readPreviousNode(previousDir);
  const sink = { wrapSink, writingThread: writingThread === true };
  if (startAgain === false) return compileInto(reader, site, target, compileOptions, sink);
  return compileStartingAgain(compileOptions, (opts) => compileInto(reader, site, target, opts, sink));
}

/**
 * Runs `compile`, and again with startAgainWith's options as long as it gives some: a compile
 * whose `since` did not hold may then find the previous version's lines out of order, so up to
 * three runs (each error leaves what caused it out of the next run).
 */
export async function compileStartingAgain<T extends CompileOptions, R>(
  options: T,
  compile: (options: T) => Promise<R>,
): Promise<R> {
  for (let run = 1; ; run++) {
    try {
      return await compile(options);
    } catch (error) {
      const again = run < 3 ? await startAgainWith(error, options) : undefined;
      if (again === undefined) throw error;
      options = again;
    }
  }
}

/**
 * The options to compile again with after a compile that stopped on `error`, or undefined when
 * it is not one a new compile can avoid: on PreviousOrderError (a previous version whose record
 * files cannot be read alongside the compile), that version with every line hashed up front; on
 * SinceMismatch, no `since` (a compile that reads every chunk).
 */
async function startAgainWith<T extends CompileOptions>(error: unknown, options: T): Promise<T | undefined> {
  if (error instanceof SinceMismatch) return { ...options, since: undefined };
  const previous = options.previous;
  if (!(error instanceof PreviousOrderError) || previous?.recordsDir === undefined) return undefined;
  const again = await readPreviousNode(previous.recordsDir, { hashRecords: true });
  if (again === undefined) throw error;
  return { ...options, previous: again };
}

async function compileInto(
  reader: GraphReader,
  site: WebsiteInfo,
  target: string,
  compileOptions: CompileOptions,
  { wrapSink, writingThread }: { wrapSink: CompileToDirectoryOptions['wrapSink']; writingThread: boolean },
): Promise<CompileResult> {
  const writer = writingThread ? await sharedFileWriter() : undefined;
  mkdirSync(dirname(target), { recursive: true });
  const temp = join(dirname(target), `.${basename(target)}.tmp-${process.pid}-${++sequence}`);
  rmSync(temp, { recursive: true, force: true });
  mkdirSync(temp);
  const sink = createDirectorySink(temp, writer);
  try {
    const result = compileNode(reader, site, compileOptions, wrapSink === undefined ? sink : wrapSink(sink));
    await sink.flushed();
    replaceDirectory(temp, target);
    return result;
  } catch (error) {
    await sink.abandon();
    rmSync(temp, { recursive: true, force: true });
    throw error;
  }
}

/** Moves `from` to `to`, replacing an existing `to` with two renames (the old copy is removed after). */
export function replaceDirectory(from: string, to: string): void {
  if (!existsSync(to)) {
    renameSync(from, to);
    return;
  }
  const old = join(dirname(to), `.${basename(to)}.old-${process.pid}-${++sequence}`);
  renameSync(to, old);
  try {
    renameSync(from, to);
  } catch (error) {
    renameSync(old, to);
    throw error;
  }
  rmSync(old, { recursive: true, force: true });
}
