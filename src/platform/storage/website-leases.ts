import type { Db } from './sqlite.js';

/**
 * One writer per website's graph (issue 41 item 3, docs/scaling.md "One writer per website"): a
 * lease in the control store names the daemon (`owner`, a string the caller chooses, e.g.
 * `host:pid:ulid`) that writes a website's graph until `expiresAt`, and the `address` where the
 * other daemons forward the website's ingest to it. The owner renews it while it runs; a dead
 * owner's leases lapse and another daemon acquires them.
 *
 * Fencing: every grant to a new tenure carries a `token` one higher than the website's last one,
 * so a write stamped by a former owner (paused past its expiry, then waking up) can be refused by
 * comparing its token with the current one; an expiry alone cannot stop a writer that does not know
 * it lapsed. Rows are therefore kept after a release: deleting one would restart its token at 1.
 *
 * Times are ms since the epoch, passed in by the caller (its clock), never read from the server.
 * One implementation for both stores: the control Db runs the same statements on control.sqlite
 * and on PostgreSQL (sql-dialect.ts).
 */
export interface WebsiteLeases {
  /**
   * Takes the website's lease when nobody holds it, or when its lease lapsed (`expiresAt <= nowMs`),
   * in one statement; a live lease of `owner` itself is extended and keeps its token.
   */
  acquire(websiteId: string, owner: string, nowMs: number, ttlMs: number, address?: string): LeaseGrant;
  /** Extends `owner`'s live lease to nowMs + ttlMs; false when it lapsed, was released or is another's. */
  renew(websiteId: string, owner: string, nowMs: number, ttlMs: number): boolean;
  /**
   * Extends every live lease of `owner` to nowMs + ttlMs in one statement (a daemon's renewal round,
   * however many websites it writes); returns the leases renewed, by website id.
   */
  renewAll(owner: string, nowMs: number, ttlMs: number): WebsiteLease[];
  /** Gives the lease up at once (others may acquire it); false when `owner` did not hold it. */
  release(websiteId: string, owner: string): boolean;
  /** The live lease of the website, if any. */
  holder(websiteId: string, nowMs: number): WebsiteLease | undefined;
  /** The websites `owner` holds a live lease on, by website id. */
  owned(owner: string, nowMs: number): WebsiteLease[];
}

export interface WebsiteLease {
  websiteId: string;
  owner: string;
  /** The tenure's fencing token: higher for every new owner of the website (see WebsiteLeases). */
  token: number;
  expiresAt: number;
  /** Where the holder takes forwarded requests (its advertised base URL), when it gave one. */
  address: string | null;
}

export type LeaseGrant = { granted: true; lease: WebsiteLease } | { granted: false; holder: WebsiteLease };

/** A lease row, as both stores answer it (PostgreSQL BIGINTs as strings). */
interface LeaseRow {
  websiteId: string;
  owner: string;
  token: number | string;
  expiresAt: number | string;
  address: string | null;
}

const toLease = (row: LeaseRow): WebsiteLease => ({
  websiteId: row.websiteId,
  owner: row.owner,
  token: Number(row.token),
  expiresAt: Number(row.expiresAt),
  address: row.address,
});

function checkArguments(owner: string, nowMs: number, ttlMs: number): void {
  if (owner.length === 0) throw new Error('a website lease needs a non-empty owner');
  if (!Number.isSafeInteger(nowMs) || nowMs < 0) throw new Error(`a lease time must be whole ms, not ${nowMs}`);
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0)
    throw new Error(`a lease ttl must be positive whole ms, not ${ttlMs}`);
}

const COLUMNS = 'website_id AS "websiteId", owner, token, expires_at AS "expiresAt", address';

/**
 * The acquire statement of both stores: insert, or take over a lapsed lease with the next token;
 * the live lease of another owner leaves the row as it was and returns nothing. A released lease
 * has expires_at 0, lapsed at any time. `$3` is now, `$4` the ttl and `$5` the
 * address, cast so that PostgreSQL types `$3 + $4` as BIGINT (SQLite reads BIGINT as INTEGER).
 */
const NOW = 'CAST($3 AS BIGINT)';
const ACQUIRE = `
  INSERT INTO website_leases (website_id, owner, token, acquired_at, expires_at, address)
  VALUES ($1, $2, 1, ${NOW}, ${NOW} + CAST($4 AS BIGINT), CAST($5 AS TEXT))
  ON CONFLICT (website_id) DO UPDATE SET
    owner = excluded.owner,
    address = excluded.address,
    token = CASE WHEN website_leases.owner = excluded.owner AND website_leases.expires_at > ${NOW}
                 THEN website_leases.token ELSE website_leases.token + 1 END,
    acquired_at = CASE WHEN website_leases.owner = excluded.owner AND website_leases.expires_at > ${NOW}
                       THEN website_leases.acquired_at ELSE excluded.acquired_at END,
    expires_at = excluded.expires_at
  WHERE website_leases.expires_at <= ${NOW} OR website_leases.owner = excluded.owner
  RETURNING ${COLUMNS}`;
const RENEW = `UPDATE website_leases SET expires_at = ${NOW} + CAST($4 AS BIGINT)
  WHERE website_id = $1 AND owner = $2 AND expires_at > ${NOW}`;
const RENEW_ALL = `UPDATE website_leases SET expires_at = CAST($2 AS BIGINT) + CAST($3 AS BIGINT)
  WHERE owner = $1 AND expires_at > CAST($2 AS BIGINT) RETURNING ${COLUMNS}`;
const RELEASE = `UPDATE website_leases SET expires_at = 0 WHERE website_id = $1 AND owner = $2 AND expires_at > 0`;
const HOLDER = `SELECT ${COLUMNS} FROM website_leases WHERE website_id = $1 AND expires_at > $2`;
const OWNED = `SELECT ${COLUMNS} FROM website_leases WHERE owner = $1 AND expires_at > $2 ORDER BY website_id`;

/** The leases in the control store (table website_leases: control migrations 13 and 14, PostgreSQL 7 and 9). */
export function createWebsiteLeases(db: Db): WebsiteLeases {
  // Numbered `$n` as named `@pn`: better-sqlite3 binds no numbered `?n`, and the dialect layer maps names on PostgreSQL.
  const prepare = (text: string) => {
    const statement = db.prepare(text.replace(/\$(\d)/g, '@p$1'));
    const bind = (values: unknown[]) => Object.fromEntries(values.map((value, i) => [`p${i + 1}`, value]));
    return {
      get: (...values: unknown[]) => statement.get(bind(values)) as LeaseRow | undefined,
      all: (...values: unknown[]) => statement.all(bind(values)) as LeaseRow[],
      run: (...values: unknown[]) => statement.run(bind(values)).changes,
    };
  };
  const acquire = prepare(ACQUIRE);
  const renew = prepare(RENEW);
  const renewAll = prepare(RENEW_ALL);
  const release = prepare(RELEASE);
  const holder = prepare(HOLDER);
  const owned = prepare(OWNED);
  const take = db.transaction(
    (websiteId: string, owner: string, nowMs: number, ttlMs: number, address: string | null): LeaseGrant => {
      const granted = acquire.get(websiteId, owner, nowMs, ttlMs, address);
      if (granted) return { granted: true, lease: toLease(granted) };
      // The upsert left a live lease of another owner, and the transaction (the write lock) keeps it there.
      return { granted: false, holder: toLease(holder.get(websiteId, nowMs)!) };
    },
  );
  return {
    acquire(websiteId, owner, nowMs, ttlMs, address) {
      checkArguments(owner, nowMs, ttlMs);
      return take.immediate(websiteId, owner, nowMs, ttlMs, address ?? null);
    },
    renew(websiteId, owner, nowMs, ttlMs) {
      checkArguments(owner, nowMs, ttlMs);
      return renew.run(websiteId, owner, nowMs, ttlMs) === 1;
    },
    renewAll(owner, nowMs, ttlMs) {
      checkArguments(owner, nowMs, ttlMs);
      return renewAll
        .all(owner, nowMs, ttlMs)
        .map(toLease)
        .sort((a, b) => (a.websiteId < b.websiteId ? -1 : a.websiteId > b.websiteId ? 1 : 0));
    },
    release: (websiteId, owner) => release.run(websiteId, owner) === 1,
    holder(websiteId, nowMs) {
      const row = holder.get(websiteId, nowMs);
      return row && toLease(row);
    },
    owned: (owner, nowMs) => owned.all(owner, nowMs).map(toLease),
  };
}
