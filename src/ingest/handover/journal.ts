import { z } from 'zod';
import {
  compiledSchema,
  DELETE_REASONS,
  IngestItemSchema,
  type DeleteReason,
  type IngestItem,
} from '../../platform/contract/index.js';
import { AppError } from '../../platform/errors/index.js';
import { isPostgresDb, type Db } from '../../platform/storage/index.js';

/** Items the owner accepted (into its inbox), as it was given them: a replay writes them with writeRawItems. */
export interface JournalItemsEntry {
  kind: 'items';
  connectorId: string;
  /** RFC 3339 UTC: the raw rows' received_at. */
  receivedAt: string;
  defaultLanguage: string;
  /** Each item with `raw`, the body its raw row holds (JSON of the item as the connector sent it). */
  items: Array<{ item: IngestItem; raw: string }>;
}

/** A delete the owner acknowledged (tombstoneItems). */
export interface JournalDeleteEntry {
  kind: 'delete';
  ids: string[];
  reason: DeleteReason;
  /** RFC 3339 UTC: the tombstones' processed_at. */
  at: string;
}

export type JournalEntry = JournalItemsEntry | JournalDeleteEntry;

/** One stored entry, read back. */
export interface JournalRecord {
  seq: number;
  /** The lease token of the tenure that wrote it. */
  token: number;
  createdAt: number;
  entry: JournalEntry;
}

/** A fenced write was refused: the caller's tenure of the website ended (another daemon holds it now). */
export class LeaseLostError extends AppError {
  constructor(websiteId: string, token: number) {
    super(
      'service.unavailable',
      `This daemon no longer owns website ${websiteId} (another daemon took it over); nothing was stored: retry the request.`,
      { details: { website_id: websiteId, token } },
    );
    this.name = 'LeaseLostError';
  }
}

/**
 * The stored body: the items as their raw JSON only (accept.ts writes the validated raw as the
 * row's body, so the item is its parse), which the reader validates against the contract again.
 */
const ItemsBodySchema = z.strictObject({
  connectorId: z.string().min(1),
  receivedAt: z.string().min(1),
  defaultLanguage: z.string().min(1),
  items: z.array(z.string()),
});
const DeleteBodySchema = z.strictObject({
  ids: z.array(z.string().min(1)).min(1),
  reason: z.enum(DELETE_REASONS),
  at: z.string().min(1),
});

function bodyOf(entry: JournalEntry): string {
  if (entry.kind === 'items') {
    const body: z.infer<typeof ItemsBodySchema> = {
      connectorId: entry.connectorId,
      receivedAt: entry.receivedAt,
      defaultLanguage: entry.defaultLanguage,
      items: entry.items.map((i) => i.raw),
    };
    return JSON.stringify(body);
  }
  const body: z.infer<typeof DeleteBodySchema> = { ids: entry.ids, reason: entry.reason, at: entry.at };
  return JSON.stringify(body);
}

/** A stored entry's body, validated; throws naming the entry when the stored JSON is not one. */
function entryOf(seq: number, kind: string, body: string): JournalEntry {
  const fail = (why: string): never => {
    throw new Error(`ingest_journal entry ${seq} (${kind}) is not valid: ${why}`);
  };
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (error) {
    return fail((error as Error).message);
  }
  if (kind === 'delete') {
    const parsed = DeleteBodySchema.safeParse(json);
    if (!parsed.success) return fail(z.prettifyError(parsed.error));
    return { kind: 'delete', ...parsed.data };
  }
  if (kind !== 'items') return fail('unknown kind');
  const parsed = ItemsBodySchema.safeParse(json);
  if (!parsed.success) return fail(z.prettifyError(parsed.error));
  const validate = compiledSchema(IngestItemSchema);
  const items = parsed.data.items.map((raw, index) => {
    const value: unknown = JSON.parse(raw);
    if (validate.validate(value)) return { item: value as IngestItem, raw };
    const item = IngestItemSchema.safeParse(value);
    if (!item.success) return fail(`items.${index}: ${z.prettifyError(item.error)}`);
    return { item: item.data, raw };
  });
  return { kind: 'items', ...parsed.data, items };
}

export interface AppendJournalInput {
  websiteId: string;
  /** The caller's lease token: the append is refused unless it is the website's live lease. */
  token: number;
  nowMs: number;
  entry: JournalEntry;
}

/**
 * On PostgreSQL the lease row is share-locked for the statement: an acquire by another daemon
 * (which updates the row) waits for this append's commit, so the new owner's restore sees it, or
 * it commits first and the append, re-checking the row, finds the new token and is refused.
 * control.sqlite serialises every writer anyway.
 */
const leaseLock = (db: Db) => (isPostgresDb(db) ? ' FOR SHARE' : '');

/**
 * Journals what the website's owner acknowledges, fenced by its lease token in the same
 * statement; returns the entry's seq, or throws LeaseLostError (nothing stored) when `token` is
 * not the live lease's. Call it inside the graph transaction that writes the entry's rows, so the
 * journal's order is the graph's write order and a refused append rolls the rows back. The append
 * commits on its own: should the graph transaction fail after it, a replay writes what the client
 * was told failed, as the client's retry would (items skip an unchanged checksum, deletes are by id).
 */
export function appendJournal(db: Db, input: AppendJournalInput): number {
  const row = db
    .prepare(
      `INSERT INTO ingest_journal (website_id, token, kind, body, created_at)
       SELECT @websiteId, @token, @kind, @body, @nowMs
       WHERE EXISTS (SELECT 1 FROM website_leases
                     WHERE website_id = @websiteId AND token = @token AND expires_at > @nowMs${leaseLock(db)})
       RETURNING seq`,
    )
    .get({
      websiteId: input.websiteId,
      token: input.token,
      kind: input.entry.kind,
      body: bodyOf(input.entry),
      nowMs: input.nowMs,
    }) as { seq: number | string } | undefined;
  if (!row) throw new LeaseLostError(input.websiteId, input.token);
  return Number(row.seq);
}

/** Entries read per statement by readJournal. */
const JOURNAL_PAGE = 200;

/**
 * The website's entries after `afterSeq`, in seq order, read `pageSize` at a time (a long journal is
 * never loaded at once). Each body is validated as it is read.
 */
export function* readJournal(
  db: Db,
  websiteId: string,
  afterSeq: number,
  pageSize = JOURNAL_PAGE,
): Generator<JournalRecord> {
  const page = db.prepare(
    `SELECT seq, token, kind, body, created_at AS "createdAt" FROM ingest_journal
     WHERE website_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
  );
  let after = afterSeq;
  for (;;) {
    const rows = page.all(websiteId, after, pageSize) as Array<{
      seq: number | string;
      token: number | string;
      kind: string;
      body: string;
      createdAt: number | string;
    }>;
    for (const row of rows) {
      const seq = Number(row.seq);
      yield {
        seq,
        token: Number(row.token),
        createdAt: Number(row.createdAt),
        entry: entryOf(seq, row.kind, row.body),
      };
      after = seq;
    }
    if (rows.length < pageSize) return;
  }
}

/** The seq of the website's last journal entry, 0 when it has none. */
export function lastJournalSeq(db: Db, websiteId: string): number {
  const row = db.prepare(`SELECT MAX(seq) AS seq FROM ingest_journal WHERE website_id = ?`).get(websiteId) as
    { seq: number | string | null } | undefined;
  return row?.seq == null ? 0 : Number(row.seq);
}

/** Deletes the website's entries up to `throughSeq` (a snapshot holds them); returns how many. */
export function pruneJournal(db: Db, websiteId: string, throughSeq: number): number {
  return db.prepare(`DELETE FROM ingest_journal WHERE website_id = ? AND seq <= ?`).run(websiteId, throughSeq).changes;
}
