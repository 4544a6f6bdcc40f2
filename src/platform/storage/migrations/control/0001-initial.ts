import type { Migration } from '../../sqlite.js';

/**
 * The first control.sqlite schema: tenancy (users, organizations, members, websites and their
 * aliases and verification), connectors, field mappings, API keys, jobs and schedules,
 * idempotency records, nonces, usage counters, analytics events and publish locks.
 */
export const migration: Migration = {
  version: 1,
  name: 'initial',
  up: (db) => {
    db.exec(`
      CREATE TABLE users (
        id TEXT PRIMARY KEY,
        email TEXT NOT NULL UNIQUE COLLATE NOCASE,
        password_hash TEXT,
        email_verified_at TEXT,
        token_version INTEGER NOT NULL DEFAULT 1,
        platform_role TEXT,
        created_at TEXT NOT NULL
      );
      CREATE TABLE organizations (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        slug TEXT NOT NULL UNIQUE,
        plan TEXT NOT NULL CHECK (plan IN ('free','pro','business')),
        created_at TEXT NOT NULL
      );
      CREATE TABLE members (
        organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        role TEXT NOT NULL CHECK (role IN ('viewer','editor','organization_admin','organization_owner')),
        created_at TEXT NOT NULL,
        PRIMARY KEY (organization_id, user_id)
      );
      CREATE TABLE websites (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        domain TEXT NOT NULL UNIQUE COLLATE NOCASE,
        name TEXT NOT NULL,
        brand TEXT,
        default_language TEXT NOT NULL DEFAULT 'en',
        created_at TEXT NOT NULL
      );
      CREATE INDEX websites_by_org ON websites(organization_id);
      CREATE TABLE website_aliases (
        website_id TEXT NOT NULL REFERENCES websites(id) ON DELETE CASCADE,
        domain TEXT NOT NULL COLLATE NOCASE,
        verified INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (website_id, domain)
      );
      CREATE TABLE verifications (
        website_id TEXT PRIMARY KEY REFERENCES websites(id) ON DELETE CASCADE,
        method TEXT,
        state TEXT NOT NULL CHECK (state IN ('pending','verified','failed','grace','revoked')),
        token TEXT,
        last_checked_at TEXT,
        grace_until TEXT,
        failure_count INTEGER NOT NULL DEFAULT 0,
        updated_at TEXT NOT NULL
      );
      CREATE TABLE connectors (
        id TEXT PRIMARY KEY,
        website_id TEXT NOT NULL REFERENCES websites(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        connector_type TEXT NOT NULL,
        source_types TEXT NOT NULL,
        secret_hash TEXT NOT NULL,
        token_version INTEGER NOT NULL DEFAULT 1,
        status TEXT NOT NULL CHECK (status IN ('active','suspended','revoked')),
        connector_state TEXT,
        last_heartbeat_at TEXT,
        stale INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX connectors_by_website ON connectors(website_id);
      CREATE TABLE field_mappings (
        website_id TEXT NOT NULL REFERENCES websites(id) ON DELETE CASCADE,
        source_path TEXT NOT NULL,
        target TEXT NOT NULL,
        attribute_name TEXT,
        provenance_method TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (website_id, source_path)
      );
      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('viewer','editor','organization_admin')),
        prefix TEXT NOT NULL,
        secret_hash TEXT NOT NULL UNIQUE,
        created_by TEXT,
        created_at TEXT NOT NULL,
        revoked_at TEXT
      );
      CREATE TABLE jobs (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        payload TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('queued','running','succeeded','dead')),
        attempts INTEGER NOT NULL DEFAULT 0,
        max_attempts INTEGER NOT NULL,
        run_at INTEGER NOT NULL,
        lease_owner TEXT,
        lease_until INTEGER,
        last_error TEXT,
        dedupe_key TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX jobs_due ON jobs(state, run_at);
      CREATE UNIQUE INDEX jobs_dedupe ON jobs(dedupe_key) WHERE dedupe_key IS NOT NULL AND state IN ('queued','running');
      CREATE TABLE schedules (
        kind TEXT PRIMARY KEY,
        interval_seconds INTEGER NOT NULL,
        next_run_at INTEGER NOT NULL
      );
      CREATE TABLE idempotency (
        connector_id TEXT NOT NULL,
        idempotency_key TEXT NOT NULL,
        body_sha256 TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('in_flight','completed')),
        status_code INTEGER,
        response TEXT,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (connector_id, idempotency_key)
      );
      CREATE INDEX idempotency_expiry ON idempotency(expires_at);
      CREATE TABLE nonces (
        scope TEXT NOT NULL,
        nonce TEXT NOT NULL,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (scope, nonce)
      ) WITHOUT ROWID;
      CREATE INDEX nonces_expiry ON nonces(expires_at);
      CREATE TABLE usage_counters (
        organization_id TEXT NOT NULL,
        metric TEXT NOT NULL,
        period TEXT NOT NULL,
        value INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (organization_id, metric, period)
      );
      CREATE TABLE analytics_events (
        website_id TEXT NOT NULL,
        metric TEXT NOT NULL,
        period_start TEXT NOT NULL,
        value INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (website_id, metric, period_start)
      );
      CREATE TABLE publish_locks (
        website_id TEXT PRIMARY KEY,
        holder TEXT NOT NULL,
        expires_at INTEGER NOT NULL
      );
    `);
  },
};
