/** The public face of src/platform/storage: what the rest of src/ may import from it. */
export { openControlDb } from './control.js';
export { isPostgresDb } from './postgres-sync.js';
export { connectPostgres, migratePostgres, PostgresSchemaTooNewError } from './postgres.js';
export { openPostgresControlStore } from './postgres-control.js';
export type { PostgresMigration, PostgresQuery, PostgresResult, PostgresStore } from './postgres.js';
export { POSTGRES_MIGRATIONS } from './migrations/postgres/index.js';
export { createWebsiteLeases } from './website-leases.js';
export type { LeaseGrant, WebsiteLease, WebsiteLeases } from './website-leases.js';
export {
  dataDirLayout,
  ensureDataDir,
  graphDbPath,
  graphInboxPath,
  isGraphDbFileName,
  PRIVATE_FILE_MODE,
  readMasterKey,
} from './data-dir.js';
export type { DataDirLayout } from './data-dir.js';
export {
  GRAPH_DB_OPTIONS,
  GRAPH_WAL_AUTOCHECKPOINT_BYTES,
  GRAPH_WAL_KEPT_BYTES,
  GraphDbPool,
  INBOX_DB_OPTIONS,
  raiseInboxSequence,
  raiseWalAutocheckpoint,
} from './graph-db.js';
export { KeptConnections } from './kept-connections.js';
export { hashedKey, sameId } from './hashed-key.js';
export { GRAPH_MIGRATIONS } from './migrations/graph/index.js';
export { INBOX_MIGRATIONS } from './migrations/inbox/index.js';
export { SchemaTooNewError, isBusyError, openDatabase, writeWithoutWaiting } from './sqlite.js';
export type { Db } from './sqlite.js';
export { commitDurably, commitWithoutSync, syncCommits, syncWalFile } from './durable-commit.js';
export { writeFileAtomic } from './write-file-atomic.js';
export { assertFreeSpace, createFreeSpaceGuard } from './free-space.js';
export type { FreeSpaceGuard, StatfsReader } from './free-space.js';
export {
  DAILY_PUBLISHES,
  USAGE_METRICS,
  addUsage,
  countPublishedVersion,
  dayOf,
  monthOf,
  readCounter,
  readUsage,
} from './usage-counters.js';
export type { UsageMetric } from './usage-counters.js';
export { createUsageBuffer, type UsageBuffer } from './usage-buffer.js';
export { BackupError, backupDataDir, restoreDataDir } from './backup.js';
export type { BackupResult, RestoreResult } from './backup.js';
export { forEachLine } from './lines.js';
