import type { Migration } from '../../sqlite.js';

/** ISO-8601 text of the 0001 tables to INTEGER ms (NULL stays NULL). */
const ms = (column: string) => `CAST(ROUND((julianday(${column}) - 2440587.5) * 86400000.0) AS INTEGER)`;
const NOW_MS = `(CAST(strftime('%s', 'now') AS INTEGER) * 1000)`;
/** Method names as the contract spells them (older rows hold trust tier names). */
const method = (column: string) =>
  `CASE ${column} WHEN 'plugin_signed' THEN 'plugin' WHEN 'well_known' THEN 'well_known_file' WHEN 'html_meta' THEN 'meta_tag' ELSE ${column} END`;
/** The bare token (older rows hold the whole record text). */
const token = (column: string) =>
  `CASE WHEN ${column} LIKE 'nodectl-verify=%' THEN substr(${column}, 16) ELSE ${column} END`;

/** The domain_verifications row of a website's own domain, from its `verifications` row `v`. */
const primaryRow = (
  v: string,
) => `${v}.website_id, w.domain, 0, ${v}.state, ${method(`${v}.method`)}, ${method(`${v}.method`)}, ${token(`${v}.token`)},
  ${ms(`${v}.last_checked_at`)}, CASE WHEN ${v}.state IN ('verified','grace') THEN ${ms(`COALESCE(${v}.last_checked_at, ${v}.updated_at)`)} END,
  ${ms(`${v}.grace_until`)}, ${v}.failure_count, COALESCE(${ms(`${v}.updated_at`)}, ${NOW_MS})`;
const aliasRow = (a: string) =>
  `${a}.website_id, ${a}.domain, 1, CASE ${a}.verified WHEN 1 THEN 'verified' ELSE 'pending' END, NULL, NULL, NULL, NULL, NULL, NULL, 0, ${NOW_MS}`;
const COLUMNS =
  'website_id, domain, is_alias, state, method, challenge_method, token, last_checked_at, verified_at, grace_until, failure_count, updated_at';

/**
 * Ownership verification (docs/websites.md "Verification"): one state machine per domain, a
 * website's own domain and each alias alike, and every transition recorded. Every time is
 * INTEGER ms.
 *
 * domain_verifications is the truth; the 0001 summaries other modules read stay in step with
 * it: `verifications` (the website's own domain: method and state, for load-website) and
 * `website_aliases.verified` (for ingest url hosts), written by src/control/verification in the same
 * transaction as each transition. Triggers give every `verifications` and `website_aliases`
 * row its domain_verifications row, whoever inserts it, and remove an alias's with it.
 */
export const migration: Migration = {
  version: 7,
  name: 'verification',
  up: (db) => {
    db.exec(`
      -- method: what proved the current verification; challenge_method and token: the open challenge
      -- (the token stays the same across challenges of the domain). plugin_proof_at: the last signed
      -- heartbeat that carried the token, and its connector.
      CREATE TABLE domain_verifications (
        website_id TEXT NOT NULL REFERENCES websites(id) ON DELETE CASCADE,
        domain TEXT NOT NULL COLLATE NOCASE,
        is_alias INTEGER NOT NULL CHECK (is_alias IN (0,1)),
        state TEXT NOT NULL CHECK (state IN ('pending','verified','failed','grace','revoked')),
        method TEXT,
        challenge_method TEXT,
        token TEXT,
        challenged_at INTEGER,
        last_checked_at INTEGER,
        verified_at INTEGER,
        grace_until INTEGER,
        failure_count INTEGER NOT NULL DEFAULT 0,
        plugin_proof_at INTEGER,
        plugin_connector_id TEXT,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (website_id, domain)
      ) WITHOUT ROWID;
      CREATE INDEX domain_verifications_due ON domain_verifications(state, last_checked_at);
      CREATE INDEX domain_verifications_by_token ON domain_verifications(token) WHERE token IS NOT NULL;
      -- One row per challenge, check, re-check, lapse and manual grant: what was read and what it did.
      CREATE TABLE verification_events (
        id TEXT PRIMARY KEY,
        website_id TEXT NOT NULL REFERENCES websites(id) ON DELETE CASCADE,
        domain TEXT NOT NULL,
        event TEXT NOT NULL CHECK (event IN ('challenge','check','recheck','plugin_heartbeat','lapse','manual')),
        method TEXT,
        result TEXT NOT NULL CHECK (result IN ('issued','passed','failed','lapsed','granted')),
        from_state TEXT NOT NULL,
        to_state TEXT NOT NULL,
        evidence TEXT NOT NULL DEFAULT '',
        actor TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX verification_events_by_website ON verification_events(website_id, created_at);
      INSERT INTO domain_verifications (${COLUMNS}) SELECT ${primaryRow('v')} FROM verifications v JOIN websites w ON w.id = v.website_id;
      INSERT OR IGNORE INTO domain_verifications (${COLUMNS}) SELECT ${aliasRow('a')} FROM website_aliases a;
      CREATE TRIGGER domain_verifications_of_website AFTER INSERT ON verifications
      BEGIN
        INSERT OR IGNORE INTO domain_verifications (${COLUMNS}) SELECT ${primaryRow('NEW')} FROM websites w WHERE w.id = NEW.website_id;
      END;
      CREATE TRIGGER domain_verifications_of_alias AFTER INSERT ON website_aliases
      BEGIN
        INSERT OR IGNORE INTO domain_verifications (${COLUMNS}) VALUES (${aliasRow('NEW')});
      END;
      CREATE TRIGGER domain_verifications_alias_removed AFTER DELETE ON website_aliases
      BEGIN
        DELETE FROM domain_verifications WHERE website_id = OLD.website_id AND domain = OLD.domain AND is_alias = 1;
      END;
    `);
  },
};
