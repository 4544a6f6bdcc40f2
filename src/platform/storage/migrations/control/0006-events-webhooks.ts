import type { Migration } from '../../sqlite.js';

/**
 * Events and webhooks (docs/webhooks.md): the events outbox, written in the transaction of the
 * change that causes each event; webhook subscriptions per website, whose signing secret is
 * derived from the master key and only hashed here; one delivery per (subscription, event) and
 * one row per attempt. Every time is INTEGER ms.
 */
export const migration: Migration = {
  version: 6,
  name: 'events webhooks',
  up: (db) => {
    db.exec(`
      -- dispatched_at: when the dispatcher made the event's deliveries (or found no subscription for it).
      CREATE TABLE events_outbox (
        id TEXT PRIMARY KEY,
        type TEXT NOT NULL,
        website_id TEXT NOT NULL REFERENCES websites(id) ON DELETE CASCADE,
        data TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        dispatched_at INTEGER
      );
      CREATE INDEX events_outbox_undispatched ON events_outbox(created_at) WHERE dispatched_at IS NULL;
      CREATE INDEX events_outbox_by_website ON events_outbox(website_id, created_at);
      -- secret_hash: SHA-256 of the key of secret_version (the key itself is derived, never stored);
      -- the key of secret_version - 1 also signs until previous_secret_until (a rotation).
      CREATE TABLE webhook_subscriptions (
        id TEXT PRIMARY KEY,
        website_id TEXT NOT NULL REFERENCES websites(id) ON DELETE CASCADE,
        url TEXT NOT NULL,
        events TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        enabled INTEGER NOT NULL DEFAULT 1,
        disabled_reason TEXT CHECK (disabled_reason IN ('manual','gone','failing')),
        secret_version INTEGER NOT NULL DEFAULT 1,
        secret_hash TEXT NOT NULL,
        previous_secret_until INTEGER,
        failing_since INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX webhook_subscriptions_by_website ON webhook_subscriptions(website_id, id);
      -- step: scheduled attempts made so far (a job carries the step it makes, so a re-run job is a no-op).
      CREATE TABLE webhook_deliveries (
        id TEXT PRIMARY KEY,
        subscription_id TEXT NOT NULL REFERENCES webhook_subscriptions(id) ON DELETE CASCADE,
        event_id TEXT NOT NULL REFERENCES events_outbox(id) ON DELETE CASCADE,
        state TEXT NOT NULL CHECK (state IN ('pending','succeeded','failed')),
        step INTEGER NOT NULL DEFAULT 0,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER,
        last_status INTEGER,
        last_error TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        UNIQUE (subscription_id, event_id)
      );
      CREATE INDEX webhook_deliveries_by_subscription ON webhook_deliveries(subscription_id, id);
      CREATE INDEX webhook_deliveries_by_event ON webhook_deliveries(event_id);
      -- status NULL: no answer came (error says why); response_excerpt: the first 1 KiB of the answer.
      CREATE TABLE webhook_attempts (
        id TEXT PRIMARY KEY,
        delivery_id TEXT NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
        trigger TEXT NOT NULL CHECK (trigger IN ('schedule','manual')),
        started_at INTEGER NOT NULL,
        duration_ms INTEGER NOT NULL,
        status INTEGER,
        error TEXT,
        response_excerpt TEXT NOT NULL DEFAULT ''
      );
      CREATE INDEX webhook_attempts_by_delivery ON webhook_attempts(delivery_id, id);
    `);
  },
};
