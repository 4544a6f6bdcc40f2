import { monotonicFactory } from 'ulid';
import type { IngestItem } from '../contract/ingest-item.js';
import type Database from 'better-sqlite3';
import type { Db } from '../storage/sqlite.js';

/** What happened to one valid item in the graph database. */
export type WriteOutcome =
  | { status: 'accepted'; rawContentId: string; update: boolean }
  | { status: 'skipped'; reason: 'unchanged_checksum' | 'tombstoned' }
  /** New or changed, but `acceptAtMost` items were already accepted: not written. */
  | { status: 'over_limit' };

interface Statements {
  find: Database.Statement<unknown[]>;
  insert: Database.Statement<unknown[]>;
  update: Database.Statement<unknown[]>;
}

const statements = new WeakMap<Db, Statements>();
const nextUlid = monotonicFactory();

function prepare(db: Db): Statements {
  let s = statements.get(db);
  if (!s) {
    s = {
      find: db.prepare('SELECT raw_content_id, checksum, state FROM raw_items WHERE item_type = ? AND item_id = ?'),
      insert: db.prepare(
        `INSERT INTO raw_items (raw_content_id, item_type, item_id, checksum, url, canonical_url, language, body, state, connector_id, received_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)`,
      ),
      update: db.prepare(
        `UPDATE raw_items SET raw_content_id = ?, checksum = ?, url = ?, canonical_url = ?, language = ?, body = ?, state = 'pending',
           connector_id = ?, received_at = ?, processed_at = NULL, last_error = NULL WHERE item_type = ? AND item_id = ?`,
      ),
    };
    statements.set(db, s);
  }
  return s;
}

export interface WriteItemsOptions {
  connectorId: string;
  defaultLanguage: string;
  receivedAt: string;
  /** Accept at most this many items (a quota's remainder); the rest that would be accepted are over_limit. Default: no limit. */
  acceptAtMost?: number;
}

/**
 * Writes valid items into raw_items in ONE transaction (run it through commitDurably):
 * new (type, id) accepted; same checksum skipped unchanged_checksum; tombstoned ids skipped;
 * a changed checksum accepted as an update with a new raw_content_id. `bodyOf(i)` serialises item i
 * only when it is written, so skipped items cost no JSON work.
 */
export function writeRawItems(db: Db, items: readonly IngestItem[], bodyOf: (index: number) => string, options: WriteItemsOptions): WriteOutcome[] {
  const s = prepare(db);
  const run = db.transaction(() => {
    const out: WriteOutcome[] = [];
    let budget = options.acceptAtMost ?? Infinity;
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      const existing = s.find.get(item.type, item.id) as { raw_content_id: string; checksum: string; state: string } | undefined;
      if (existing?.state === 'tombstoned') {
        out.push({ status: 'skipped', reason: 'tombstoned' });
        continue;
      }
      if (existing && existing.checksum === item.checksum) {
        out.push({ status: 'skipped', reason: 'unchanged_checksum' });
        continue;
      }
      if (budget <= 0) {
        out.push({ status: 'over_limit' });
        continue;
      }
      budget--;
      const rawContentId = `raw_${nextUlid()}`;
      const language = item.language ?? options.defaultLanguage;
      if (existing) {
        s.update.run(rawContentId, item.checksum, item.url, item.canonical_url ?? null, language, bodyOf(i), options.connectorId, options.receivedAt, item.type, item.id);
      } else {
        s.insert.run(rawContentId, item.type, item.id, item.checksum, item.url, item.canonical_url ?? null, language, bodyOf(i), options.connectorId, options.receivedAt);
      }
      out.push({ status: 'accepted', rawContentId, update: existing !== undefined });
    }
    return out;
  });
  return run.immediate();
}
