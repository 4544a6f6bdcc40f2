import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { WebsiteInfo } from '../../../src/control/records/website-info.js';
import { writeInboxItems } from '../../../src/ingest/graph/inbox.js';
import { writeRawItems } from '../../../src/ingest/graph/raw-items.js';
import { tombstoneItems } from '../../../src/ingest/graph/tombstone.js';
import { appendJournal } from '../../../src/ingest/handover/journal.js';
import type { HandoverDeps, SnapshotStore } from '../../../src/ingest/handover/snapshots.js';
import type { IngestItem } from '../../../src/platform/contract/ingest-item.js';
import { silentLogger } from '../../../src/platform/log/logger.js';
import { openControlDb } from '../../../src/platform/storage/control.js';
import { dataDirLayout } from '../../../src/platform/storage/data-dir.js';
import { GraphDbPool } from '../../../src/platform/storage/graph-db.js';
import type { Db } from '../../../src/platform/storage/sqlite.js';
import { createWebsiteLeases, type WebsiteLeases } from '../../../src/platform/storage/website-leases.js';
import { makeTempDir } from '../../helpers/paths.js';
import { createTestDatabase } from '../../helpers/postgres.js';
import { site as graphSite } from '../graph/helpers.js';

/**
 * Two (or more) "daemons" over one control store: each its own data directory (graphs, scratch)
 * and its own connection to the store, as daemons sharing a PostgreSQL control store are.
 */
export const WEB = 'web_01JHKAB5P8S0T4W6X8Z0B2E4G6';
export const TTL = 30_000;
export const site: WebsiteInfo = { ...graphSite, websiteId: WEB };

export interface ControlStore {
  name: string;
  /** A new connection to the store (one per daemon). */
  connect(): Promise<() => Db>;
}

export const CONTROL_STORES: ControlStore[] = [
  {
    name: 'control.sqlite',
    connect: async () => {
      const temp = makeTempDir('nodectl-handover-control-');
      cleanups.push(() => temp.cleanup());
      return () => openControlDb(dataDirLayout(temp.dir));
    },
  },
  {
    name: 'postgres',
    connect: async () => {
      const url = await createTestDatabase();
      return () => {
        const temp = makeTempDir('nodectl-handover-pg-');
        cleanups.push(() => temp.cleanup());
        return openControlDb(dataDirLayout(temp.dir), url);
      };
    },
  },
];

export const cleanups: Array<() => unknown> = [];
export async function runCleanups(): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
}

/** The test's clock: leases, journal fences and records all read it. */
export const clock = { ms: 1_800_000_000_000 };

export interface Daemon extends HandoverDeps {
  name: string;
  leases: WebsiteLeases;
  /** Acquires the website's lease; returns the token. */
  acquire(): Promise<number>;
  /**
   * Writes the items straight into raw_items and journals the accepted ones in one graph
   * transaction (as a restore's replay writes them); returns the outcomes.
   */
  accept(token: number, items: IngestItem[], receivedAt?: string): ReturnType<typeof writeRawItems>;
  /** What accept.ts does: writes the items into the inbox and journals the accepted ones in its transaction. */
  acceptIntoInbox(token: number, items: IngestItem[]): ReturnType<typeof writeRawItems>;
  /** What delete-items.ts will do: tombstones the items and journals the delete in one graph transaction. */
  delete(token: number, ids: string[], reason: 'source_deleted' | 'gdpr_erasure'): void;
  /** The website's raw rows, as a restore must reproduce them (raw content ids are random). */
  rows(): Array<Record<string, unknown>>;
}

export function daemon(name: string, controlDb: Db, snapshots: SnapshotStore): Daemon {
  const temp = makeTempDir(`nodectl-handover-${name}-`);
  const layout = dataDirLayout(temp.dir);
  const graphs = new GraphDbPool(layout);
  cleanups.push(() => temp.cleanup());
  cleanups.push(() => graphs.closeAll());
  cleanups.push(() => controlDb.close());
  const leases = createWebsiteLeases(controlDb);
  /** Journals the items `out` accepted, as accept.ts does inside its write transaction. */
  const journalAccepted = (
    token: number,
    items: IngestItem[],
    out: ReturnType<typeof writeRawItems>,
    options: { connectorId: string; defaultLanguage: string; receivedAt: string },
  ) => {
    const accepted = items.flatMap((item, i) =>
      out[i]!.status === 'accepted' ? [{ item, raw: JSON.stringify(item) }] : [],
    );
    if (accepted.length > 0)
      appendJournal(controlDb, {
        websiteId: WEB,
        token,
        nowMs: clock.ms,
        entry: { kind: 'items', ...options, items: accepted },
      });
  };
  const d: Daemon = {
    name,
    layout,
    graphs,
    controlDb,
    snapshots,
    logger: silentLogger,
    now: () => clock.ms,
    leases,
    async acquire() {
      const grant = await leases.acquire(WEB, name, clock.ms, TTL);
      if (!grant.granted) throw new Error(`${name} could not acquire: ${JSON.stringify(grant.holder)}`);
      return grant.lease.token;
    },
    accept(token, items, receivedAt = new Date(clock.ms).toISOString()) {
      const db = graphs.get(WEB);
      const options = { connectorId: 'conn_1', defaultLanguage: 'en', receivedAt };
      return db
        .transaction(() => {
          const out = writeRawItems(db, items, (i) => JSON.stringify(items[i]), options);
          journalAccepted(token, items, out, options);
          return out;
        })
        .immediate();
    },
    acceptIntoInbox(token, items) {
      const options = { connectorId: 'conn_1', defaultLanguage: 'en', receivedAt: new Date(clock.ms).toISOString() };
      return writeInboxItems(
        graphs.get(WEB),
        graphs.inbox(WEB),
        items,
        (i) => JSON.stringify(items[i]),
        options,
        (out) => journalAccepted(token, items, out, options),
      );
    },
    delete(token, ids, reason) {
      const db = graphs.get(WEB);
      const at = new Date(clock.ms).toISOString();
      db.transaction(() => {
        tombstoneItems(db, ids, reason, at);
        appendJournal(controlDb, {
          websiteId: WEB,
          token,
          nowMs: clock.ms,
          entry: { kind: 'delete', ids, reason, at },
        });
      })();
    },
    rows: () =>
      graphs
        .get(WEB)
        .prepare(
          `SELECT item_type, item_id, checksum, url, canonical_url, language, body, state, tombstone_reason,
             connector_id, received_at, processed_at FROM raw_items ORDER BY item_type, item_id`,
        )
        .all() as Array<Record<string, unknown>>,
  };
  return d;
}

/** A valid item; `version` changes its checksum and body. */
export function item(id: string, version = 1): IngestItem {
  const html = `<html lang="en"><head><title>Page ${id} v${version}</title></head><body><main><h1>Page ${id}</h1><p>Version ${version} of page ${id}.</p></main></body></html>`;
  return {
    type: 'page',
    id,
    url: `https://shop.example/p/${id}`,
    checksum: 'sha256:' + createHash('sha256').update(html).digest('hex'),
    html,
  };
}

export const scratchOf = (d: Daemon) => join(d.layout.root, 'tmp');
