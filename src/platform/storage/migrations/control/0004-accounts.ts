import type { Migration } from '../../sqlite.js';

/**
 * Accounts (docs/auth.md): sessions and their refresh tokens, TOTP enrolment and recovery codes,
 * single-use mailed tokens, and links to external identities (Google). Every time is INTEGER ms.
 */
export const migration: Migration = {
  version: 4,
  name: 'accounts',
  up: (db) => {
    db.exec(`
      CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        last_used_at INTEGER NOT NULL,
        revoked_at INTEGER,
        revoked_reason TEXT
      );
      CREATE INDEX sessions_by_user ON sessions(user_id);
      CREATE INDEX sessions_expiry ON sessions(expires_at);
      -- One row per refresh token a session ever had: a rotated one stays (rotated_at set) so
      -- presenting it again is recognised as reuse and ends the whole session.
      CREATE TABLE refresh_tokens (
        token_hash TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        created_at INTEGER NOT NULL,
        rotated_at INTEGER
      ) WITHOUT ROWID;
      CREATE INDEX refresh_tokens_by_session ON refresh_tokens(session_id);
      -- secret_ciphertext is AES-256-GCM under a key derived from keys/master.key; enabled_at is
      -- NULL while the enrolment awaits its first code; last_used_step makes each code single use.
      CREATE TABLE user_totp (
        user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
        secret_ciphertext TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        enabled_at INTEGER,
        last_used_step INTEGER
      );
      CREATE TABLE recovery_codes (
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        code_hash TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        used_at INTEGER,
        PRIMARY KEY (user_id, code_hash)
      ) WITHOUT ROWID;
      CREATE TABLE mail_tokens (
        token_hash TEXT PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('email_verification','password_reset','organization_transfer','invitation')),
        user_id TEXT REFERENCES users(id) ON DELETE CASCADE,
        email TEXT NOT NULL COLLATE NOCASE,
        payload TEXT,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        used_at INTEGER
      ) WITHOUT ROWID;
      CREATE INDEX mail_tokens_by_subject ON mail_tokens(kind, user_id);
      CREATE INDEX mail_tokens_expiry ON mail_tokens(expires_at);
      CREATE TABLE user_identities (
        provider TEXT NOT NULL,
        subject TEXT NOT NULL,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        email TEXT NOT NULL COLLATE NOCASE,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (provider, subject)
      ) WITHOUT ROWID;
      CREATE INDEX user_identities_by_user ON user_identities(user_id);
    `);
  },
};
