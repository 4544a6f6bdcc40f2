// Rows written into every migration fixture (scripts/make-migration-fixture.mjs), as nodectl's own
// code would have written them: tenancy times are ISO-8601 text, job, idempotency, nonce, rate
// limit and lock times are milliseconds since the epoch. A fixture at version N gets the tables
// and columns that exist at N; a column added later is left out and takes its default on migrate.
// Fixed values, no clock and no randomness: the same version always gets the same bytes. Add rows
// for a new table; do not change existing ones (the test checks what committed fixtures hold).
import { createHash, scryptSync } from 'node:crypto';

const sha256 = (text) => createHash('sha256').update(text).digest('hex');

const T0 = Date.UTC(2025, 0, 15, 9, 30); // 2025-01-15T09:30:00.000Z
const iso = (ms) => new Date(ms).toISOString();
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** test/platform/storage/migrations.app.test.ts signs in with these; committed fixtures hold them, so they never change. */
export const FIXTURE_PASSWORD = 'correct-horse-battery';
export const FIXTURE_API_KEY = 'nk_live_Mig7FixtureKey0a1b2c3d4e5f6g7h8';

// scrypt with the parameters src/control/records/password-hash.ts records, and a fixed salt.
const salt = Buffer.from('6e6f6465637463746c2d666978747572', 'hex');
const key = scryptSync(FIXTURE_PASSWORD, salt, 32, { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
const passwordHash = `scrypt$32768$8$1$${salt.toString('base64')}$${key.toString('base64')}`;

const user = 'usr_01JHKAB3M6Q8R2T4V6X8Z0C2E4';
const org = 'org_01JHKAB4N7R9S3V5W7Y9A1D3F5';
const web = 'web_01JHKAB5P8S0T4W6X8Z0B2E4G6';
const conn = 'conn_01JHKAB6Q9T1V5X7Y9A1C3F5H7';
const ingestResponse = JSON.stringify({
  data: {
    accepted: 2,
    rejected: 0,
    items: [
      { type: 'page', id: '42', outcome: 'created' },
      { type: 'product', id: 'sku-1001', outcome: 'created' },
    ],
  },
});

export const CONTROL_SEED = {
  users: [
    {
      id: user,
      email: 'owner@example.com',
      password_hash: passwordHash,
      email_verified_at: iso(T0),
      token_version: 1,
      platform_role: null,
      created_at: iso(T0),
    },
  ],
  organizations: [{ id: org, name: 'Example Ltd', slug: 'example-ltd', plan: 'pro', created_at: iso(T0) }],
  members: [{ organization_id: org, user_id: user, role: 'organization_owner', created_at: iso(T0) }],
  websites: [
    {
      id: web,
      organization_id: org,
      domain: 'example.com',
      name: 'Example',
      brand: 'Example',
      default_language: 'en',
      created_at: iso(T0 + MINUTE),
    },
  ],
  website_aliases: [{ website_id: web, domain: 'www.example.com', verified: 1 }],
  verifications: [
    {
      website_id: web,
      method: 'dns_txt',
      state: 'verified',
      token: 'nodectl-verify=7f3a9c',
      last_checked_at: iso(T0 + 2 * MINUTE),
      grace_until: null,
      failure_count: 0,
      updated_at: iso(T0 + 2 * MINUTE),
    },
  ],
  connectors: [
    {
      id: conn,
      website_id: web,
      name: 'WordPress',
      connector_type: 'wordpress',
      source_types: '["page","post","product"]',
      secret_hash: sha256(`${conn}:1:fixture-secret`),
      token_version: 1,
      status: 'active',
      connector_state: '{"cursor":"2025-01-15T09:40:00Z"}',
      last_heartbeat_at: iso(T0 + 10 * MINUTE),
      stale: 0,
      created_at: iso(T0 + 3 * MINUTE),
      updated_at: iso(T0 + 3 * MINUTE),
    },
  ],
  field_mappings: [
    {
      website_id: web,
      source_path: 'acf.price',
      target: 'attribute',
      attribute_name: 'price',
      provenance_method: 'cms_field',
      created_at: iso(T0 + 4 * MINUTE),
    },
  ],
  api_keys: [
    {
      id: 'key_01JHKAB7R0V2W6Y8Z0B2D4G6J8',
      organization_id: org,
      name: 'ci deploy',
      role: 'editor',
      prefix: FIXTURE_API_KEY.slice(0, 12),
      secret_hash: sha256(FIXTURE_API_KEY),
      created_by: user,
      created_at: iso(T0 + 5 * MINUTE),
      revoked_at: null,
    },
  ],
  jobs: [
    {
      id: 'job_01JHKAB8S1W3X7Z9A1C3E5H7K9',
      kind: 'content.ingest',
      payload: JSON.stringify({ website_id: web, raw_content_ids: ['raw_01JHKAB9T2X4Y8A0B2D4F6J8M0'] }),
      state: 'queued',
      attempts: 0,
      max_attempts: 5,
      run_at: T0 + 11 * MINUTE,
      lease_owner: null,
      lease_until: null,
      last_error: null,
      dedupe_key: null,
      created_at: T0 + 11 * MINUTE,
      updated_at: T0 + 11 * MINUTE,
    },
    {
      id: 'job_01JHKABAV3Y5Z9B1C3E5G7K9N1',
      kind: 'content.ingest',
      payload: JSON.stringify({ website_id: web, raw_content_ids: [] }),
      state: 'dead',
      attempts: 5,
      max_attempts: 5,
      run_at: T0 + 20 * MINUTE,
      lease_owner: null,
      lease_until: null,
      last_error: 'graph database is locked',
      dedupe_key: null,
      created_at: T0 + 12 * MINUTE,
      updated_at: T0 + 20 * MINUTE,
    },
  ],
  schedules: [{ kind: 'maintenance.expire', interval_seconds: 3600, next_run_at: T0 + 60 * MINUTE }],
  idempotency: [
    {
      connector_id: conn,
      idempotency_key: 'batch-0001',
      body_sha256: sha256('batch-0001 body'),
      state: 'completed',
      status_code: 200,
      response: ingestResponse,
      created_at: T0 + 11 * MINUTE,
      expires_at: T0 + 11 * MINUTE + DAY,
    },
    {
      connector_id: conn,
      idempotency_key: 'batch-0002',
      body_sha256: sha256('batch-0002 body'),
      state: 'in_flight',
      status_code: null,
      response: null,
      created_at: T0 + 12 * MINUTE,
      expires_at: T0 + 17 * MINUTE,
      owner: 'build-host:4242:01JHKABBW4Z6A0C2D4F6H8M0P2',
    },
  ],
  nonces: [{ scope: conn, nonce: 'f1d2d2f924e986ac86fdf7b36c94bcdf', expires_at: T0 + 16 * MINUTE }],
  usage_counters: [{ organization_id: org, metric: 'items_ingested', period: '2025-01', value: 2 }],
  analytics_events: [{ website_id: web, metric: 'node.reads', period_start: '2025-01-15T09:00:00Z', value: 7 }],
  publish_locks: [
    { website_id: web, holder: 'build-host:4242:01JHKABBW4Z6A0C2D4F6H8M0P2', expires_at: T0 + 15 * MINUTE },
  ],
  // 0013 website leases: the build host's daemon writes the website's graph, the third owner since.
  website_leases: [
    {
      website_id: web,
      owner: 'build-host:4242:01JHKABBW4Z6A0C2D4F6H8M0P2',
      token: 3,
      acquired_at: T0 + 10 * MINUTE,
      expires_at: T0 + 20 * MINUTE,
    },
  ],
  waitlist: [
    {
      email: 'early@example.org',
      source: 'landing',
      consent_at: iso(T0 + 30 * MINUTE),
      created_at: iso(T0 + 30 * MINUTE),
    },
  ],
  rate_limits: [{ bucket: 'waitlist:203.0.113.7', window_start: T0 + 30 * MINUTE, count: 3 }],
  // 0004 accounts: one session whose first refresh token was rotated into a second, 2FA on.
  sessions: [
    {
      id: 'ses_01JHKABEZ7C9D3F5G7J9M1Q3S5',
      user_id: user,
      created_at: T0 + 40 * MINUTE,
      expires_at: T0 + 40 * MINUTE + 30 * DAY,
      last_used_at: T0 + 55 * MINUTE,
      revoked_at: null,
      revoked_reason: null,
    },
  ],
  refresh_tokens: [
    {
      token_hash: sha256('fixture refresh token 1'),
      session_id: 'ses_01JHKABEZ7C9D3F5G7J9M1Q3S5',
      created_at: T0 + 40 * MINUTE,
      rotated_at: T0 + 55 * MINUTE,
    },
    {
      token_hash: sha256('fixture refresh token 2'),
      session_id: 'ses_01JHKABEZ7C9D3F5G7J9M1Q3S5',
      created_at: T0 + 55 * MINUTE,
      rotated_at: null,
    },
  ],
  user_totp: [
    {
      user_id: user,
      secret_ciphertext: 'v1.Zml4dHVyZS1pdg.Zml4dHVyZS1jaXBoZXJ0ZXh0.Zml4dHVyZS10YWc',
      created_at: T0 + 41 * MINUTE,
      enabled_at: T0 + 42 * MINUTE,
      last_used_step: Math.floor((T0 + 42 * MINUTE) / 30_000),
    },
  ],
  recovery_codes: [
    { user_id: user, code_hash: sha256('fixture recovery code 1'), created_at: T0 + 42 * MINUTE, used_at: null },
    {
      user_id: user,
      code_hash: sha256('fixture recovery code 2'),
      created_at: T0 + 42 * MINUTE,
      used_at: T0 + 50 * MINUTE,
    },
  ],
  factor_lockouts: [{ user_id: user, failures: 2, locked_until: null, updated_at: T0 + 51 * MINUTE }],
  // 0010 retired connector secrets: the hash of a token version rotated away.
  retired_connector_secrets: [
    {
      connector_id: conn,
      token_version: 1,
      secret_hash: sha256(`${conn}:1:fixture-retired-secret`),
      retired_at: T0 + 52 * MINUTE,
    },
  ],
  mail_tokens: [
    {
      token_hash: sha256('fixture verification token'),
      kind: 'email_verification',
      user_id: user,
      email: 'owner@example.com',
      payload: null,
      created_at: T0,
      expires_at: T0 + DAY,
      used_at: T0 + 20 * MINUTE,
    },
  ],
  user_identities: [
    {
      provider: 'google',
      subject: '108512345678901234567',
      user_id: user,
      email: 'owner@example.com',
      created_at: T0 + 45 * MINUTE,
    },
  ],
  // 0005 organizations: an invitation waiting for its address, a cancelled transfer, one audit row.
  organization_invitations: [
    {
      id: 'inv_01JHKABFA8D0E4G6J8M0Q2S4V6', // 0011 on
      organization_id: org,
      email: 'new-hire@example.org',
      role: 'editor',
      invited_by: user,
      token_hash: sha256('fixture invitation token'),
      created_at: T0 + 60 * MINUTE,
      expires_at: T0 + 60 * MINUTE + 7 * DAY,
    },
  ],
  organization_transfers: [
    {
      id: 'xfr_01JHKABGB9E1F5H7K9N1R3T5V7',
      organization_id: org,
      from_user_id: user,
      to_email: 'buyer@example.org',
      token_hash: sha256('fixture transfer token'),
      state: 'cancelled',
      accepted_by: null,
      job_id: null,
      created_at: T0 + 61 * MINUTE,
      expires_at: T0 + 61 * MINUTE + 7 * DAY,
      updated_at: T0 + 62 * MINUTE,
    },
  ],
  audit_log: [
    {
      seq: 1,
      id: 'aud_01JHKABHC0F2G6J8M0P2S4U6W8',
      organization_id: org,
      actor_kind: 'user',
      actor_id: user,
      action: 'member.invited',
      target: 'new-hire@example.org',
      request_id: 'req-fixture-1',
      details: '{"role":"editor"}',
      created_at: T0 + 60 * MINUTE,
    },
  ],
  // 0006 events and webhooks: a published event delivered on the second attempt (a 503, then a 204).
  events_outbox: [
    {
      id: 'evt_01JHKABJD1G3H7K9N1Q3T5W7X9',
      type: 'node.published',
      website_id: web,
      data: '{"node_version":"01JHKABKE2H4J8M0P2R4V6X8Y0","node_version_label":"2025-01-15.1"}',
      created_at: T0 + 70 * MINUTE,
      dispatched_at: T0 + 70 * MINUTE,
    },
  ],
  webhook_subscriptions: [
    {
      id: 'whk_01JHKABMF3J5K9N1Q3S5W7Y9Z1',
      website_id: web,
      url: 'https://hooks.example.org/nodectl',
      events: '["node.published","node.taken_down"]',
      description: 'CMS cache purge',
      enabled: 1,
      disabled_reason: null,
      secret_version: 2,
      secret_hash: sha256('fixture webhook key v2'),
      previous_secret_until: T0 + 65 * MINUTE + DAY,
      failing_since: null,
      created_at: T0 + 64 * MINUTE,
      updated_at: T0 + 65 * MINUTE,
    },
  ],
  webhook_deliveries: [
    {
      id: 'dlv_01JHKABNG4K6M0P2R4T6X8Z0A2',
      subscription_id: 'whk_01JHKABMF3J5K9N1Q3S5W7Y9Z1',
      event_id: 'evt_01JHKABJD1G3H7K9N1Q3T5W7X9',
      state: 'succeeded',
      step: 2,
      attempts: 2,
      next_attempt_at: null,
      last_status: 204,
      last_error: null,
      created_at: T0 + 70 * MINUTE,
      updated_at: T0 + 70 * MINUTE + 5_000,
    },
  ],
  webhook_attempts: [
    {
      id: 'att_01JHKABPH5M7N1Q3S5V7Y9A1B3',
      delivery_id: 'dlv_01JHKABNG4K6M0P2R4T6X8Z0A2',
      trigger: 'schedule',
      started_at: T0 + 70 * MINUTE,
      duration_ms: 41,
      status: 503,
      error: null,
      response_excerpt: 'upstream unavailable',
    },
    {
      id: 'att_01JHKABQJ6N8P2R4T6W8Z0B2C4',
      delivery_id: 'dlv_01JHKABNG4K6M0P2R4T6X8Z0A2',
      trigger: 'schedule',
      started_at: T0 + 70 * MINUTE + 5_000,
      duration_ms: 38,
      status: 204,
      error: null,
      response_excerpt: '',
    },
  ],
  // 0007 verification: domain_verifications rows come from the verifications and website_aliases rows (triggers); the check that verified example.com.
  verification_events: [
    {
      id: 'vev_01JHKABRK7P9Q3S5V7X9A1C3D5',
      website_id: web,
      domain: 'example.com',
      event: 'check',
      method: 'dns_txt',
      result: 'passed',
      from_state: 'pending',
      to_state: 'verified',
      evidence: 'dns_txt passed: TXT _nodectl-verify.example.com: "nodectl-verify=7f3a9c"',
      actor: `user:${user}`,
      created_at: T0 + 2 * MINUTE,
    },
  ],
};

const pageBody = {
  type: 'page',
  id: '42',
  url: 'https://example.com/about',
  title: 'About Example',
  language: 'en',
  html: '<h1>About Example</h1><p>Example Ltd makes hand-built bicycles in Utrecht since 2009.</p>',
  checksum: `sha256:${sha256('page 42 v1')}`,
};
const productBody = {
  type: 'product',
  id: 'sku-1001',
  url: 'https://example.com/shop/city-bike',
  title: 'City Bike',
  language: 'en',
  html:
    '<html lang="en"><head><title>City Bike</title><script type="application/ld+json">' +
    JSON.stringify({
      '@context': 'https://schema.org',
      '@type': 'Product',
      name: 'City Bike',
      sku: 'SKU-1001',
      offers: { '@type': 'Offer', price: '899.00', priceCurrency: 'EUR' },
    }) +
    '</script></head><body><main><h1>City Bike</h1><p>A steel city bike with a hub gear, built by hand in Utrecht.</p></main></body></html>',
  checksum: `sha256:${sha256('product sku-1001 v1')}`,
};
const sourceId = `src_${sha256('page 42 source').slice(0, 24)}`;
const entityId = `entity_${sha256('organization example ltd').slice(0, 24)}`;
const factId = `fact_${sha256('example ltd founded').slice(0, 24)}`;

export const GRAPH_SEED = {
  raw_items: [
    {
      raw_content_id: 'raw_01JHKAB9T2X4Y8A0B2D4F6J8M0',
      item_type: 'page',
      item_id: '42',
      checksum: pageBody.checksum,
      url: pageBody.url,
      canonical_url: null,
      language: 'en',
      body: JSON.stringify(pageBody),
      state: 'processed',
      tombstone_reason: null,
      connector_id: conn,
      received_at: iso(T0 + 11 * MINUTE),
      processed_at: iso(T0 + 11 * MINUTE + 900),
      last_error: null,
    },
    {
      raw_content_id: 'raw_01JHKABCX5A7B1D3E5G7J9N1Q3',
      item_type: 'product',
      item_id: 'sku-1001',
      checksum: productBody.checksum,
      url: productBody.url,
      canonical_url: null,
      language: 'en',
      body: JSON.stringify(productBody),
      state: 'pending',
      tombstone_reason: null,
      connector_id: conn,
      received_at: iso(T0 + 12 * MINUTE),
      processed_at: null,
      last_error: null,
    },
    {
      raw_content_id: 'raw_01JHKABDY6B8C2E4F6H8K0P2R4',
      item_type: 'post',
      item_id: '7',
      checksum: '',
      url: '',
      canonical_url: null,
      language: null,
      body: null,
      state: 'tombstoned',
      tombstone_reason: 'gdpr_erasure',
      connector_id: conn,
      received_at: iso(T0 + 13 * MINUTE),
      processed_at: null,
      last_error: null,
    },
  ],
  item_contributions: [
    {
      item_key: 'page:42',
      primary_entity_id: entityId,
      language: 'en',
      source_id: sourceId,
      url: pageBody.url,
      canonical_url: null,
      title: 'About Example',
      content_type: 'page',
      last_seen_at: iso(T0 + 11 * MINUTE),
      checksum: pageBody.checksum,
      warnings: '[]',
    },
  ],
  sources: [
    {
      id: sourceId,
      url: pageBody.url,
      canonical_url: null,
      title: 'About Example',
      content_type: 'page',
      last_seen_at: iso(T0 + 11 * MINUTE),
      checksum: pageBody.checksum,
      language: 'en',
      trust: 0.9,
    },
  ],
  entities: [
    {
      id: entityId,
      type: 'Organization',
      canonical_key: 'example ltd',
      name: 'Example Ltd',
      language: 'en',
      confidence: 0.9,
      provenance_method: 'text_extraction',
      source_id: sourceId,
      source_url: pageBody.url,
      importance: 1,
      attributes: '{}',
      item_key: 'page:42',
    },
  ],
  fact_candidates: [
    {
      fact_id: factId,
      item_key: 'page:42',
      ordinal: 0,
      subject: 'Example Ltd',
      subject_entity_id: entityId,
      predicate: 'founded',
      value: '"2009"',
      language: 'en',
      confidence: 0.8,
      provenance_method: 'text_extraction',
      provenance_rank: 3,
      unit: null,
      currency: null,
      display: '2009',
      importance: 2,
      freshness: 'stable',
      valid_from: null,
      valid_until: null,
      source_id: sourceId,
      source_url: pageBody.url,
      last_seen_at: iso(T0 + 11 * MINUTE),
      status: 'active',
      rank: 0,
    },
  ],
  chunks: [
    {
      id: `chunk_${sha256('page:42 0 en').slice(0, 24)}`,
      item_key: 'page:42',
      position: 0,
      language: 'en',
      text: 'Example Ltd makes hand-built bicycles in Utrecht since 2009.',
      heading_path: '["About Example"]',
      tokens_estimate: 14,
      mention_ids: JSON.stringify([entityId]),
      source_id: sourceId,
    },
  ],
  editorial: [
    {
      record_id: factId,
      hidden: 0,
      pinned: 1,
      pinned_item_key: 'page:42',
      editorial_status: 'reviewed',
      reviewed_by: user,
      original_value: null,
    },
  ],
};

/** An item a push acknowledged and no content.ingest job moved yet (graphs/<id>.inbox.sqlite). */
export const INBOX_SEED = {
  inbox_items: [
    {
      raw_content_id: 'raw_01JHKABEZ7C9D3F5G7J9M1Q3S5',
      item_type: 'page',
      item_id: '43',
      checksum: pageBody.checksum,
      url: pageBody.url,
      canonical_url: null,
      language: 'en',
      body: JSON.stringify(pageBody),
      connector_id: conn,
      received_at: iso(T0 + 13 * MINUTE),
    },
  ],
};
