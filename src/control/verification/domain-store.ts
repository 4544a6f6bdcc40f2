import { newUlid } from '../../platform/ids/index.js';
import type { Db } from '../../platform/storage/index.js';
import {
  canonicalMethodName,
  countsAsVerified,
  VERIFICATION_STATES,
  type VerificationState,
} from '../records/index.js';
import { isChallengeMethod, type ChallengeMethod } from './methods.js';

/** One domain's verification (a website's own domain or one of its aliases), as domain_verifications holds it. */
export interface DomainVerification {
  readonly websiteId: string;
  readonly domain: string;
  readonly isAlias: boolean;
  readonly state: VerificationState;
  /** What proved the current (or last) verification. */
  readonly method: string | null;
  /** The method the open challenge asks for. */
  readonly challengeMethod: ChallengeMethod | null;
  /** The bare token; null until the first challenge. */
  readonly token: string | null;
  readonly challengedAt: number | null;
  readonly lastCheckedAt: number | null;
  readonly verifiedAt: number | null;
  readonly graceUntil: number | null;
  readonly failureCount: number;
  readonly pluginProofAt: number | null;
  readonly pluginConnectorId: string | null;
  readonly updatedAt: number;
  /** What the latest check read when it failed (its evidence); null when it passed or no failure counts. */
  readonly lastFailure: string | null;
}

interface Row {
  website_id: string;
  domain: string;
  is_alias: number;
  state: string;
  method: string | null;
  challenge_method: string | null;
  token: string | null;
  challenged_at: number | null;
  last_checked_at: number | null;
  verified_at: number | null;
  grace_until: number | null;
  failure_count: number;
  plugin_proof_at: number | null;
  plugin_connector_id: string | null;
  updated_at: number;
  last_failure: string | null;
}

/**
 * A domain's row with the evidence of its latest check when that failed, from the record of
 * steps (verification_events keeps it already; no column of its own to keep in step).
 */
const SELECT_DOMAIN = `SELECT d.*, (SELECT CASE e.result WHEN 'failed' THEN e.evidence END FROM verification_events e
    WHERE e.website_id = d.website_id AND d.domain = e.domain AND e.event IN ('check', 'recheck', 'plugin_heartbeat')
    ORDER BY e.created_at DESC, e.rowid DESC LIMIT 1) AS last_failure
  FROM domain_verifications d`;

function challengeMethodOf(name: string | null): ChallengeMethod | null {
  const method = canonicalMethodName(name);
  return isChallengeMethod(method) ? method : null;
}

function toRecord(row: Row): DomainVerification {
  return {
    websiteId: row.website_id,
    domain: row.domain.toLowerCase(),
    isAlias: row.is_alias === 1,
    state: (VERIFICATION_STATES as readonly string[]).includes(row.state)
      ? (row.state as VerificationState)
      : 'pending',
    // Migration 0007 and its triggers write the contract's names; an alias that got in is read as its method.
    method: canonicalMethodName(row.method) ?? row.method,
    challengeMethod: challengeMethodOf(row.challenge_method),
    token: row.token,
    challengedAt: row.challenged_at,
    lastCheckedAt: row.last_checked_at,
    verifiedAt: row.verified_at,
    graceUntil: row.grace_until,
    failureCount: row.failure_count,
    pluginProofAt: row.plugin_proof_at,
    pluginConnectorId: row.plugin_connector_id,
    updatedAt: row.updated_at,
    lastFailure: row.failure_count > 0 ? row.last_failure : null,
  };
}

export function readDomainVerification(db: Db, websiteId: string, domain: string): DomainVerification | undefined {
  const row = db.prepare(`${SELECT_DOMAIN} WHERE d.website_id = ? AND d.domain = ?`).get(websiteId, domain) as
    Row | undefined;
  return row ? toRecord(row) : undefined;
}

/** The website's own domain first, then its aliases by name. */
export function listDomainVerifications(db: Db, websiteId: string): DomainVerification[] {
  return (
    db.prepare(`${SELECT_DOMAIN} WHERE d.website_id = ? ORDER BY d.is_alias, d.domain`).all(websiteId) as Row[]
  ).map(toRecord);
}

/** The domain whose verification holds `token`, among the website's. */
export function findDomainByToken(db: Db, websiteId: string, token: string): DomainVerification | undefined {
  const row = db.prepare(`${SELECT_DOMAIN} WHERE d.website_id = ? AND d.token = ?`).get(websiteId, token) as
    Row | undefined;
  return row ? toRecord(row) : undefined;
}

/**
 * Verified or in-grace domains to re-check: not checked since `checkedBefore` (or never), a
 * method that can be checked (not manual), oldest check first.
 */
export function listDueForRecheck(db: Db, checkedBefore: number, limit: number): DomainVerification[] {
  return (
    db
      .prepare(
        `${SELECT_DOMAIN} WHERE d.state IN ('verified','grace') AND COALESCE(d.method, '') != 'manual' AND COALESCE(d.last_checked_at, 0) <= ?
     ORDER BY COALESCE(d.last_checked_at, 0), d.website_id, d.domain LIMIT ?`,
      )
      .all(checkedBefore, limit) as Row[]
  ).map(toRecord);
}

/** When a challenged domain was last issued or checked (a CASE: SQLite's two-argument MAX is not PostgreSQL's). */
const LAST_ACTIVITY = 'CASE WHEN d.last_checked_at > d.challenged_at THEN d.last_checked_at ELSE d.challenged_at END';

/**
 * Pending domains with an open challenge to re-check: issued after `issuedAfter` (not expired),
 * neither issued nor checked since `quietSince` (the owner may have just checked), oldest first.
 */
export function listPendingForRecheck(
  db: Db,
  options: { issuedAfter: number; quietSince: number; limit: number },
): DomainVerification[] {
  return (
    db
      .prepare(
        `${SELECT_DOMAIN} WHERE d.state = 'pending' AND d.token IS NOT NULL AND d.challenge_method IS NOT NULL AND d.challenged_at > ?
       AND ${LAST_ACTIVITY} <= ? ORDER BY ${LAST_ACTIVITY}, d.website_id, d.domain LIMIT ?`,
      )
      .all(options.issuedAfter, options.quietSince, options.limit) as Row[]
  ).map(toRecord);
}

/** Pending domains whose challenge was issued at or before `issuedBy`: expired. */
export function listExpiredChallenges(db: Db, issuedBy: number): DomainVerification[] {
  return (
    db
      .prepare(
        `${SELECT_DOMAIN} WHERE d.state = 'pending' AND d.challenged_at <= ? ORDER BY d.challenged_at, d.website_id, d.domain`,
      )
      .all(issuedBy) as Row[]
  ).map(toRecord);
}

/** Grace windows that ended at or before `now`. */
export function listLapsedGrace(db: Db, now: number): DomainVerification[] {
  return (
    db
      .prepare(
        `${SELECT_DOMAIN} WHERE d.state = 'grace' AND d.grace_until <= ? ORDER BY d.grace_until, d.website_id, d.domain`,
      )
      .all(now) as Row[]
  ).map(toRecord);
}

/**
 * Writes a domain's verification and, in the same statement group, the summaries other modules
 * read: the website's `verifications` row (method and state, read by load-website for the
 * compiler and MCP) for its own domain, `website_aliases.verified` (ingest url hosts) for an
 * alias. Call inside a transaction.
 */
export function writeDomainVerification(db: Db, record: DomainVerification): void {
  db.prepare(
    `UPDATE domain_verifications SET state = ?, method = ?, challenge_method = ?, token = ?, challenged_at = ?, last_checked_at = ?, verified_at = ?, grace_until = ?,
       failure_count = ?, plugin_proof_at = ?, plugin_connector_id = ?, updated_at = ? WHERE website_id = ? AND domain = ?`,
  ).run(
    record.state,
    record.method,
    record.challengeMethod,
    record.token,
    record.challengedAt,
    record.lastCheckedAt,
    record.verifiedAt,
    record.graceUntil,
    record.failureCount,
    record.pluginProofAt,
    record.pluginConnectorId,
    record.updatedAt,
    record.websiteId,
    record.domain,
  );
  if (record.isAlias) {
    db.prepare('UPDATE website_aliases SET verified = ? WHERE website_id = ? AND domain = ?').run(
      countsAsVerified(record.state) ? 1 : 0,
      record.websiteId,
      record.domain,
    );
    return;
  }
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  db.prepare(
    'UPDATE verifications SET method = ?, state = ?, token = ?, last_checked_at = ?, grace_until = ?, failure_count = ?, updated_at = ? WHERE website_id = ?',
  ).run(
    record.method,
    record.state,
    record.token,
    iso(record.lastCheckedAt),
    iso(record.graceUntil),
    record.failureCount,
    iso(record.updatedAt),
    record.websiteId,
  );
}

/** What one verification step did, as verification_events keeps it. */
export interface VerificationEventInput {
  readonly websiteId: string;
  readonly domain: string;
  readonly event: 'challenge' | 'check' | 'recheck' | 'plugin_heartbeat' | 'lapse' | 'manual';
  readonly method: string | null;
  readonly result: 'issued' | 'passed' | 'failed' | 'lapsed' | 'granted';
  readonly fromState: VerificationState;
  readonly toState: VerificationState;
  /** What was read (the TXT records, the tag, the file's start, the error): cut to 1,000 characters. */
  readonly evidence: string;
  /** `user:<id>`, `api_key:<id>`, `connector:<id>`, `operator` or `system`. */
  readonly actor: string;
}

export const EVIDENCE_MAX = 1000;

export function recordVerificationEvent(db: Db, event: VerificationEventInput, now: number): string {
  const id = `vev_${newUlid(now)}`;
  db.prepare(
    'INSERT INTO verification_events (id, website_id, domain, event, method, result, from_state, to_state, evidence, actor, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  ).run(
    id,
    event.websiteId,
    event.domain,
    event.event,
    event.method,
    event.result,
    event.fromState,
    event.toState,
    event.evidence.slice(0, EVIDENCE_MAX),
    event.actor,
    now,
  );
  return id;
}

export interface VerificationEventRecord extends Omit<VerificationEventInput, 'websiteId'> {
  readonly id: string;
  readonly at: number;
}

/**
 * The website's latest verification events, newest first (rowid orders the
 * steps of one millisecond: ULIDs made in one ms do not sort by creation).
 */
export function listVerificationEvents(db: Db, websiteId: string, limit: number): VerificationEventRecord[] {
  const rows = db
    .prepare('SELECT * FROM verification_events WHERE website_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?')
    .all(websiteId, limit) as Array<{
    id: string;
    domain: string;
    event: VerificationEventInput['event'];
    method: string | null;
    result: VerificationEventInput['result'];
    from_state: VerificationState;
    to_state: VerificationState;
    evidence: string;
    actor: string;
    created_at: number;
  }>;
  return rows.map((r) => ({
    id: r.id,
    at: r.created_at,
    domain: r.domain,
    event: r.event,
    method: r.method,
    result: r.result,
    fromState: r.from_state,
    toState: r.to_state,
    evidence: r.evidence,
    actor: r.actor,
  }));
}
