/**
 * The public face of src/ingest/handover: how a website's graph moves between daemons sharing a
 * control store (issue 41 item 3): the owner's ingest journal, graph snapshots in the publish
 * target, and a new owner's restore and replay. Nothing here runs unless the daemon calls it.
 */
export {
  appendJournal,
  lastJournalSeq,
  LeaseLostError,
  pruneJournal,
  readJournal,
  type AppendJournalInput,
  type JournalDeleteEntry,
  type JournalEntry,
  type JournalItemsEntry,
  type JournalRecord,
} from './journal.js';
export {
  createSnapshotter,
  deleteWebsiteSnapshots,
  readSnapshotRecord,
  snapshotKey,
  snapshotPrefix,
  takeGraphSnapshot,
  type HandoverDeps,
  type SnapshotOutcome,
  type SnapshotRecord,
  type Snapshotter,
  type SnapshotStore,
} from './snapshots.js';
export { restoreGraph, type RestoreOutcome } from './restore.js';
