import { existsSync } from 'node:fs';
import { AppError } from '../errors/app-error.js';
import { GRAPH_DB_OPTIONS } from '../graph/schema.js';
import { SqliteGraphReader } from '../graph/reader.js';
import { loadWebsiteInfo } from '../website/load-website.js';
import { openControlDb } from '../storage/control.js';
import { dataDirLayout, graphDbPath } from '../storage/data-dir.js';
import { openDatabase } from '../storage/sqlite.js';
import { compileToDirectory, type CompileToDirectoryOptions } from './directory.js';
import type { CompileResult } from './types.js';

/**
 * Compiles a served website's node from the data directory: WebsiteInfo from control.sqlite, the
 * graph from graphs/<websiteId>.sqlite as of the compile's first read, written atomically into
 * `outDir`.
 */
export async function compileWebsite(dataDir: string, websiteId: string, outDir: string, options: CompileToDirectoryOptions): Promise<CompileResult> {
  const layout = dataDirLayout(dataDir);
  if (!existsSync(layout.controlDb)) throw new AppError('website.not_found', `no data directory at ${layout.root} (control.sqlite is missing)`);
  const control = openControlDb(layout);
  let site;
  try {
    site = loadWebsiteInfo(control, websiteId);
  } finally {
    control.close();
  }
  if (site === undefined) throw new AppError('website.not_found', `website ${websiteId} does not exist in ${layout.root}`);
  const graphFile = graphDbPath(layout, websiteId);
  if (!existsSync(graphFile)) throw new AppError('website.not_found', `website ${websiteId} has no graph yet (${graphFile}); ingest content first`);
  const db = openDatabase(graphFile, GRAPH_DB_OPTIONS);
  try {
    // One read transaction: ingestion keeps committing while a large website compiles, and each
    // query would otherwise read the graph as of its own start. The node is one state of the
    // graph. (An error leaves the transaction to close().)
    db.exec('BEGIN');
    const result = await compileToDirectory(new SqliteGraphReader(db), site, outDir, options);
    db.exec('COMMIT');
    return result;
  } finally {
    db.close();
  }
}
