import { existsSync } from 'node:fs';
import { AppError } from '../platform/errors/app-error.js';
import { GRAPH_DB_OPTIONS } from '../ingest/graph/schema.js';
import { SqliteGraphReader } from '../ingest/graph/reader.js';
import { ThreadedGraphReader } from '../ingest/graph/reader-thread.js';
import { loadWebsiteInfo } from '../control/records/load-website.js';
import { openControlDb } from '../platform/storage/control.js';
import { dataDirLayout, graphDbPath } from '../platform/storage/data-dir.js';
import { openDatabase, type Db } from '../platform/storage/sqlite.js';
import { compileToDirectory, type CompileToDirectoryOptions } from './directory.js';
import type { CompileResult } from './types.js';

export interface CompileWebsiteOptions extends CompileToDirectoryOptions {
  /** Read the graph in a thread of its own (ThreadedGraphReader). Default: when the graph is large (READING_THREAD_MIN_FACTS). */
  readingThread?: boolean;
}

/**
 * Compiles a served website's node from the data directory: WebsiteInfo from control.sqlite, the
 * graph from graphs/<websiteId>.sqlite as of the compile's first read, written atomically into
 * `outDir`.
 */
export async function compileWebsite(
  dataDir: string,
  websiteId: string,
  outDir: string,
  options: CompileWebsiteOptions,
): Promise<CompileResult> {
  const layout = dataDirLayout(dataDir);
  if (!existsSync(layout.controlDb))
    throw new AppError('website.not_found', `no data directory at ${layout.root} (control.sqlite is missing)`);
  const control = openControlDb(layout);
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
  try {
    const { readingThread, ...compileOptions } = options;
    if (readingThread ?? isLargeGraph(db)) {
      const reader = await ThreadedGraphReader.open(graphFile);
      try {
        return await compileToDirectory(reader, site, outDir, compileOptions);
      } finally {
        await reader.close();
      }
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
 * the thread (about 40 ms) costs more than it saves (docs/publishing.md "The reading thread").
 */
export const READING_THREAD_MIN_FACTS = 20_000;

/** Whether the graph holds READING_THREAD_MIN_FACTS fact candidates or more (rowids count them closely enough, in a lookup). */
function isLargeGraph(db: Db): boolean {
  const last = db.prepare('SELECT max(rowid) FROM fact_candidates').pluck().get() as number | null;
  return (last ?? 0) >= READING_THREAD_MIN_FACTS;
}
