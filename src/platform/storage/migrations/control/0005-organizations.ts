import type { Migration } from '../../sqlite.js';

/**
 * Organizations (docs/organizations.md): pending invitations of unknown addresses, ownership
 * transfers, erasure requests and the append-only audit log. Every time is INTEGER ms.
 */
export const migration: Migration = {
  version: 5,
  name: 'organizations',
  up: (db) => {
    db.exec(`
      -- An address without an account, invited with a role; it joins once the address is verified.
      CREATE TABLE organization_invitations (
        organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        email TEXT NOT NULL COLLATE NOCASE,
        role TEXT NOT NULL CHECK (role IN ('viewer','editor','organization_admin','organization_owner')),
        invited_by TEXT,
        token_hash TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (organization_id, email)
      ) WITHOUT ROWID;
      CREATE INDEX organization_invitations_by_email ON organization_invitations(email);
      -- token_hash is the hash of the mailed organization_transfer token (mail_tokens), to find the transfer by it.
      CREATE TABLE organization_transfers (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        from_user_id TEXT,
        to_email TEXT NOT NULL COLLATE NOCASE,
        token_hash TEXT NOT NULL UNIQUE,
        state TEXT NOT NULL CHECK (state IN ('pending','accepted','completed','cancelled','expired')),
        accepted_by TEXT,
        job_id TEXT,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      -- At most one transfer per organization waits for its recipient or its job.
      CREATE UNIQUE INDEX organization_transfers_open ON organization_transfers(organization_id) WHERE state IN ('pending','accepted');
      -- One row while an erasure runs; the erase job deletes it with the organization.
      CREATE TABLE organization_erasures (
        organization_id TEXT PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
        id TEXT NOT NULL UNIQUE,
        requested_by TEXT,
        requested_at INTEGER NOT NULL
      );
      -- Append-only: no row changes, and a row goes only once its organization is gone (erase, delete).
      -- seq orders an organization's rows (a new row always takes the highest seq + 1); id is what readers see.
      CREATE TABLE audit_log (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        organization_id TEXT NOT NULL,
        actor_kind TEXT NOT NULL CHECK (actor_kind IN ('user','api_key','system','operator')),
        actor_id TEXT,
        action TEXT NOT NULL,
        target TEXT,
        request_id TEXT,
        details TEXT NOT NULL DEFAULT '{}',
        created_at INTEGER NOT NULL
      );
      CREATE INDEX audit_log_by_organization ON audit_log(organization_id, seq);
      CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
      BEGIN
        SELECT RAISE(ABORT, 'audit_log is append-only');
      END;
      CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
      WHEN EXISTS (SELECT 1 FROM organizations WHERE id = OLD.organization_id)
      BEGIN
        SELECT RAISE(ABORT, 'audit_log is append-only: its rows go only with their organization');
      END;
    `);
  },
};
