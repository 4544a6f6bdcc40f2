import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { GraphReader } from '../graph/types.js';
import type { WebsiteInfo } from '../website/types.js';
import { compileNode } from './compile-node.js';
import { readPreviousNode } from './previous.js';
import type { NodeSink } from './sink.js';
import type { CompileOptions, CompileResult } from './types.js';

/** A sink that writes each file into `dir` (which must exist), fsynced on close. */
export function createDirectorySink(dir: string): NodeSink {
  return {
    open(path) {
      if (path.includes('/') || path.includes('\\') || path.startsWith('.')) throw new Error(`refusing to write outside the node directory: ${path}`);
      const fd = openSync(join(dir, path), 'wx');
      return {
        write: (chunk) => {
          for (let done = 0; done < chunk.length; ) done += writeSync(fd, chunk, done);
        },
        close: () => {
          fsyncSync(fd);
          closeSync(fd);
        },
      };
    },
  };
}

export interface CompileToDirectoryOptions extends CompileOptions {
  /** A directory holding the previous version of this node (for changes.jsonl, versions.json and the label); ignored when `previous` is given. Default: none. */
  previousDir?: string;
  /** The sink the compiler writes through, around the directory's (a publish's check of the bytes as written, written-node.ts). Default: the directory's. */
  wrapSink?: (sink: NodeSink) => NodeSink;
}

let sequence = 0;

/**
 * Compiles the node into `outDir` atomically: files are written into a sibling temp directory,
 * which then replaces `outDir` by rename, so a reader never sees half a node and a failed
 * compile (validation, uuid leak, I/O) leaves the old `outDir` untouched.
 */
export async function compileToDirectory(reader: GraphReader, site: WebsiteInfo, outDir: string, options: CompileToDirectoryOptions): Promise<CompileResult> {
  const target = resolve(outDir);
  const { previousDir, wrapSink, ...compileOptions } = options;
  if (compileOptions.previous === undefined && previousDir !== undefined) compileOptions.previous = await readPreviousNode(previousDir);
  mkdirSync(dirname(target), { recursive: true });
  const temp = join(dirname(target), `.${basename(target)}.tmp-${process.pid}-${++sequence}`);
  rmSync(temp, { recursive: true, force: true });
  mkdirSync(temp);
  try {
    const sink = createDirectorySink(temp);
    const result = compileNode(reader, site, compileOptions, wrapSink === undefined ? sink : wrapSink(sink));
    replaceDirectory(temp, target);
    return result;
  } catch (error) {
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
