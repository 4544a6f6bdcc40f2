import { existsSync } from 'node:fs';
import { AppError } from '../platform/errors/index.js';
import { GRAPH_DB_OPTIONS, SqliteGraphReader, ThreadedGraphReader } from '../ingest/graph/index.js';
import { loadWebsiteInfo } from '../control/records/index.js';
import { openControlDb, dataDirLayout, graphDbPath, openDatabase, type Db } from '../platform/storage/index.js';
import { compilerCodeKey } from './code-key.js';
import { compileStatePath, keepCompileState, readCompileState } from './compile-state-file.js';
import { compileStartingAgain, compileToDirectory, type CompileToDirectoryOptions } from './directory.js';
import type { CompileResult } from './types.js';

export interface CompileWebsiteOptions extends CompileToDirectoryOptions {
  /**
   * Read the graph in a thread of its own (ThreadedGraphReader).
   * Default: when the graph is large (READING_THREAD_MIN_FACTS).
   */
  readingThread?: boolean;
  /** The controlStore setting: a `postgres://` URL reads WebsiteInfo there, not from control.sqlite. */
  controlStore?: string;
}

/**
 * Compiles a served website's node from the data directory: WebsiteInfo from control.sqlite, the
 * graph from graphs/<websiteId>.sqlite as of the compile's first read, written atomically into
 * `outDir`. Against a previous version, the state its compile left beside the graph
 * (compile-state-file.ts) lets unchanged chunks be copied; this compile's state is kept there.
 */
export async function compileWebsite(
  dataDir: string,
  websiteId: string,
  outDir: string,
  options: CompileWebsiteOptions,
): Promise<CompileResult> {
  const layout = dataDirLayout(dataDir);
  if (options.controlStore === undefined && !existsSync(layout.controlDb))
    throw new AppError('website.not_found', `no data directory at ${layout.root} (control.sqlite is missing)`);
  const control = openControlDb(layout, options.controlStore);
  let site;
  try {
    site = loadWebsiteInfo(control, websiteId);
  } finally {
    control.close();
  }
  if (site === undefined)
    throw new AppError('website.not_found', `website ${websiteId} does not exist in ${layout.root}`);
  const graphFile = graphDbPath(layout, websiteId);
  if (!existsSync(graphFile))
    throw new AppError(
      'website.not_found',
      `website ${websiteId} has no graph yet (${graphFile}); ingest content first`,
    );
  const db = openDatabase(graphFile, GRAPH_DB_OPTIONS);
  const stateFile = compileStatePath(layout, websiteId);
  const result = await compileGraph(db, graphFile, site, outDir, withCompileState(options, stateFile));
  if (result.state !== undefined) keepCompileState(stateFile, result.state);
  return result;
}

/** `options` with the code key and, against a previous version, the state its compile kept. */
function withCompileState(options: CompileWebsiteOptions, stateFile: string): CompileWebsiteOptions {
  const codeKey = options.codeKey ?? compilerCodeKey();
  const previous = options.previous;
  const since =
    options.since ?? (previous === undefined ? undefined : readCompileState(stateFile, previous.nodeVersion));
  return { ...options, codeKey, ...(since === undefined ? {} : { since }) };
}

async function compileGraph(
  db: Db,
  graphFile: string,
  site: NonNullable<ReturnType<typeof loadWebsiteInfo>>,
  outDir: string,
  options: CompileWebsiteOptions,
): Promise<CompileResult> {
  try {
    const { readingThread, ...compileOptions } = options;
    if (readingThread ?? isLargeGraph(db)) {
      // A reading thread reads the graph once: compiling again takes a new one. The files are written on a thread too.
      const compileThreaded = async (opts: CompileToDirectoryOptions) => {
        const reader = await ThreadedGraphReader.open(graphFile);
        try {
          return await compileToDirectory(reader, site, outDir, { ...opts, startAgain: false, writingThread: true });
        } finally {
          await reader.close();
        }
      };
      return await compileStartingAgain(compileOptions, compileThreaded);
    }
    // One read transaction: ingestion keeps committing while a large website compiles, and each
    // query would otherwise read the graph as of its own start. The node is one state of the
    // graph. (An error leaves the transaction to close().)
    db.exec('BEGIN');
    const result = await compileToDirectory(new SqliteGraphReader(db), site, outDir, compileOptions);
    db.exec('COMMIT');
    return result;
  } finally {
    db.close();
  }
}

/**
 * Fact candidates from which a compile reads the graph in a thread of its own: below, starting
 * the thread costs more than it saves (docs/publishing.md "The reading thread").
 */
export const READING_THREAD_MIN_FACTS = 20_000;

/**
 * Whether the graph holds READING_THREAD_MIN_FACTS fact candidates
 * or more (rowids count them closely enough, in a lookup).
 */
function isLargeGraph(db: Db): boolean {
  const last = db.prepare('SELECT max(rowid) FROM fact_candidates').pluck().get() as number | null;
  return (last ?? 0) >= READING_THREAD_MIN_FACTS;
}
