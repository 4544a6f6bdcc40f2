import { AppError } from '../../platform/errors/app-error.js';
import type { EventType } from '../events/catalogue.js';
import { newUlid } from '../../platform/ids/ulid.js';
import type { ListQuery } from '../../platform/http/list-query.js';
import type { Db } from '../../platform/storage/sqlite.js';
import { deriveSigningKey, formatSecret, hashSigningKey } from './secret.js';

/** How long the previous secret still signs after a rotation (docs/webhooks.md "Rotation"). */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

export type DisabledReason = 'manual' | 'gone' | 'failing';

export interface SubscriptionRecord {
  id: string;
  websiteId: string;
  url: string;
  events: EventType[];
  description: string;
  enabled: boolean;
  disabledReason: DisabledReason | null;
  secretVersion: number;
  secretHash: string;
  /** Until when (ms) the key of secretVersion - 1 also signs; null when no rotation overlaps. */
  previousSecretUntil: number | null;
  /** The first failed attempt since the last success (ms), or null. */
  failingSince: number | null;
  createdAt: number;
  updatedAt: number;
}

interface SubscriptionRow {
  id: string;
  website_id: string;
  url: string;
  events: string;
  description: string;
  enabled: number;
  disabled_reason: DisabledReason | null;
  secret_version: number;
  secret_hash: string;
  previous_secret_until: number | null;
  failing_since: number | null;
  created_at: number;
  updated_at: number;
}

function toRecord(row: SubscriptionRow): SubscriptionRecord {
  return {
    id: row.id,
    websiteId: row.website_id,
    url: row.url,
    events: JSON.parse(row.events) as EventType[],
    description: row.description,
    enabled: row.enabled === 1,
    disabledReason: row.disabled_reason,
    secretVersion: row.secret_version,
    secretHash: row.secret_hash,
    previousSecretUntil: row.previous_secret_until,
    failingSince: row.failing_since,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** A subscription as the API shows it: never the secret, never its hash. */
export function presentSubscription(sub: SubscriptionRecord, now: number) {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return {
    id: sub.id,
    websiteId: sub.websiteId,
    url: sub.url,
    events: sub.events,
    description: sub.description,
    enabled: sub.enabled,
    disabledReason: sub.disabledReason,
    secretVersion: sub.secretVersion,
    previousSecretExpiresAt:
      sub.previousSecretUntil !== null && sub.previousSecretUntil > now ? iso(sub.previousSecretUntil) : null,
    failingSince: iso(sub.failingSince),
    createdAt: iso(sub.createdAt),
    updatedAt: iso(sub.updatedAt),
  };
}

export interface SubscriptionInput {
  url: string;
  events: readonly EventType[];
  description: string;
}

const sortedUnique = (events: readonly EventType[]) => JSON.stringify([...new Set(events)].sort());

/** Creates a subscription; its secret (`whsec_...`) is returned only here and by a rotation. */
export function createSubscription(
  db: Db,
  masterKey: Uint8Array,
  websiteId: string,
  input: SubscriptionInput,
  now: number,
): { subscription: SubscriptionRecord; secret: string } {
  const id = `whk_${newUlid(now)}`;
  const key = deriveSigningKey(masterKey, id, 1);
  db.prepare(
    `INSERT INTO webhook_subscriptions (id, website_id, url, events, description, enabled, secret_version, secret_hash, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, 1, 1, ?, ?, ?)`,
  ).run(id, websiteId, input.url, sortedUnique(input.events), input.description, hashSigningKey(key), now, now);
  return { subscription: readSubscription(db, websiteId, id), secret: formatSecret(key) };
}

/** The subscription of the website, or 404 webhook.not_found (one of another website is not found either). */
export function readSubscription(db: Db, websiteId: string, id: string): SubscriptionRecord {
  const row = db.prepare('SELECT * FROM webhook_subscriptions WHERE id = ? AND website_id = ?').get(id, websiteId) as
    SubscriptionRow | undefined;
  if (!row)
    throw new AppError(
      'webhook.not_found',
      `No webhook subscription ${id} on website ${websiteId}: see GET /v1/websites/${websiteId}/webhooks.`,
    );
  return toRecord(row);
}

/** The subscription by id alone (the delivery job's view), or undefined once deleted. */
export function findSubscription(db: Db, id: string): SubscriptionRecord | undefined {
  const row = db.prepare('SELECT * FROM webhook_subscriptions WHERE id = ?').get(id) as SubscriptionRow | undefined;
  return row ? toRecord(row) : undefined;
}

/** One page of the website's subscriptions, oldest first (LIMIT limit + 1, for pageOf). */
export function listSubscriptionsPage(db: Db, websiteId: string, query: ListQuery): SubscriptionRecord[] {
  const rows = db
    .prepare('SELECT * FROM webhook_subscriptions WHERE website_id = ? AND id > ? ORDER BY id LIMIT ?')
    .all(websiteId, query.after ?? '', query.limit + 1) as SubscriptionRow[];
  return rows.map(toRecord);
}

export interface SubscriptionChanges {
  url?: string;
  events?: readonly EventType[];
  description?: string;
  enabled?: boolean;
}

/**
 * Changes url, events, description or enabled. Enabling clears the disabled reason and the
 * failing streak (a subscription disabled for failing gets a fresh 3 days); disabling by hand
 * records the reason `manual`.
 */
export function updateSubscription(
  db: Db,
  websiteId: string,
  id: string,
  changes: SubscriptionChanges,
  now: number,
): SubscriptionRecord {
  const current = readSubscription(db, websiteId, id);
  const enabled = changes.enabled ?? current.enabled;
  const reenabled = enabled && !current.enabled;
  db.prepare(
    `UPDATE webhook_subscriptions SET url = ?, events = ?, description = ?, enabled = ?, disabled_reason = ?, failing_since = ?, updated_at = ? WHERE id = ?`,
  ).run(
    changes.url ?? current.url,
    sortedUnique(changes.events ?? current.events),
    changes.description ?? current.description,
    enabled ? 1 : 0,
    enabled ? null : current.enabled ? 'manual' : current.disabledReason,
    reenabled ? null : current.failingSince,
    now,
    id,
  );
  return readSubscription(db, websiteId, id);
}

/** Deletes the subscription with its deliveries and their attempts; false when there was none. */
export function deleteSubscription(db: Db, websiteId: string, id: string): boolean {
  return (
    db.prepare('DELETE FROM webhook_subscriptions WHERE id = ? AND website_id = ?').run(id, websiteId).changes === 1
  );
}

/**
 * A new secret: the version goes up and the previous key keeps signing (a second signature) for
 * 24 hours, so receivers can switch without losing a delivery. The new secret is returned once.
 */
export function rotateSubscriptionSecret(
  db: Db,
  masterKey: Uint8Array,
  websiteId: string,
  id: string,
  now: number,
): { subscription: SubscriptionRecord; secret: string } {
  const current = readSubscription(db, websiteId, id);
  const version = current.secretVersion + 1;
  const key = deriveSigningKey(masterKey, id, version);
  db.prepare(
    'UPDATE webhook_subscriptions SET secret_version = ?, secret_hash = ?, previous_secret_until = ?, updated_at = ? WHERE id = ?',
  ).run(version, hashSigningKey(key), now + ROTATION_OVERLAP_MS, now, id);
  return { subscription: readSubscription(db, websiteId, id), secret: formatSecret(key) };
}

/**
 * The keys that sign a request at `now`: the current one first, then the previous one while its
 * overlap lasts. Throws when the current key does not match the stored hash (the master key of
 * the data directory was replaced): signing with it would fail every receiver's check.
 */
export function signingKeysOf(sub: SubscriptionRecord, masterKey: Uint8Array, now: number): Buffer[] {
  const current = deriveSigningKey(masterKey, sub.id, sub.secretVersion);
  if (hashSigningKey(current) !== sub.secretHash)
    throw new Error(
      `the signing key of ${sub.id} no longer matches its stored hash (was keys/master.key replaced?): rotate its secret`,
    );
  const keys = [current];
  if (sub.previousSecretUntil !== null && sub.previousSecretUntil > now && sub.secretVersion > 1)
    keys.push(deriveSigningKey(masterKey, sub.id, sub.secretVersion - 1));
  return keys;
}
