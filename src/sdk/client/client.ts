import { randomUUID } from 'node:crypto';
import { request, type Dispatcher } from 'undici';
import { MAX_BATCH_ITEMS } from '../../platform/contract/ingest-limits.js';
import { IngestError } from './errors.js';
import { DEFAULT_RETRY, isRetryableStatus, parseRetryAfter, retryDelayMs, type RetryPolicy } from './retry.js';
import { deriveSigningKey, parseConnectorToken, signRequest } from '../../platform/contract/signing.js';
import type {
  BatchResult,
  DeleteReason,
  DeleteResult,
  FieldMapping,
  HeartbeatInput,
  HeartbeatResult,
  IngestItemInput,
  ItemResult,
  SchemaResult,
} from './types.js';

export const CLIENT_VERSION = '0.3.0';

export interface IngestClientOptions {
  /** API origin, e.g. http://127.0.0.1:8787. */
  baseUrl: string;
  /** Connector token `<connectorId>.<secret>`. */
  token: string;
  websiteId: string;
  /** Sent as X-Site-Domain (the website's domain). */
  siteDomain?: string;
  /** X-Connector-Type; default "custom". */
  connectorType?: string;
  /** X-Connector-Version; default the client version. */
  connectorVersion?: string;
  /** Retry policy; default 3 attempts, base 500 ms, cap 30 s. */
  retry?: Partial<RetryPolicy>;
  /** undici dispatcher (connection pool); default the global one. */
  dispatcher?: Dispatcher;
  /** Added to the local clock when signing, in seconds (clock correction from heartbeat). */
  clockOffsetSeconds?: number;
  /** Per-attempt timeout in ms; default 120000. */
  timeoutMs?: number;
  /** Called before each retry (for logs and tests). */
  onRetry?: (info: { attempt: number; delayMs: number; status: number; code: string }) => void;
  /** How to wait; tests may replace it. */
  sleep?: (ms: number) => Promise<void>;
}

export interface SendOptions {
  /** Reused on every retry of this operation; default a new UUID. */
  idempotencyKey?: string;
}

interface Envelope<T> {
  ok: boolean;
  data?: T;
  error?: { code: string; message: string; details?: Record<string, unknown>; retryable?: boolean };
  meta?: { requestId?: string };
}

/** What the last call answered beyond the data (for callers that care). */
export interface CallInfo {
  status: number;
  attempts: number;
  replayed: boolean;
  requestId?: string;
}

/**
 * The reference ingest client: signs every request (svc.connector.hmac.v1), retries 5xx, 408,
 * 429 and network errors with the same Idempotency-Key and a fresh nonce and timestamp, and splits
 * large pushes into batches of 500.
 */
export class IngestClient {
  private readonly policy: RetryPolicy;
  private readonly signingKey: Buffer;
  private readonly sleep: (ms: number) => Promise<void>;
  /** Details of the most recent call. */
  lastCall: CallInfo | undefined;

  constructor(private readonly options: IngestClientOptions) {
    const token = parseConnectorToken(options.token);
    if (!token)
      throw new IngestError('The connector token must look like <connectorId>.<secret>.', 'client.bad_token', 0);
    this.signingKey = deriveSigningKey(token.secret, options.websiteId);
    this.policy = { ...DEFAULT_RETRY, ...options.retry };
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** POST /v1/ingest/batch with up to 500 items. */
  sendBatch(
    items: readonly IngestItemInput[],
    options: SendOptions & { partial?: boolean } = {},
  ): Promise<BatchResult> {
    if (items.length > MAX_BATCH_ITEMS)
      throw new IngestError(
        `At most ${MAX_BATCH_ITEMS} items per batch; use pushItems() to split.`,
        'client.batch_too_large',
        0,
      );
    return this.call<BatchResult>(
      '/v1/ingest/batch',
      { website_id: this.options.websiteId, partial: options.partial ?? true, items },
      options,
    );
  }

  /** Sends any number of items in batches of 500 and merges the outcomes in order. */
  async pushItems(
    items: readonly IngestItemInput[],
    options: { partial?: boolean; onBatch?: (result: BatchResult, done: number, total: number) => void } = {},
  ): Promise<BatchResult> {
    const merged: BatchResult = {
      website_id: this.options.websiteId,
      received: 0,
      accepted: 0,
      skipped: 0,
      errored: 0,
      results: [],
    };
    for (let i = 0; i < items.length; i += MAX_BATCH_ITEMS) {
      const result = await this.sendBatch(items.slice(i, i + MAX_BATCH_ITEMS), { partial: options.partial });
      merged.received += result.received;
      merged.accepted += result.accepted;
      merged.skipped += result.skipped;
      merged.errored += result.errored;
      merged.results.push(...result.results);
      options.onBatch?.(result, Math.min(items.length, i + MAX_BATCH_ITEMS), items.length);
    }
    return merged;
  }

  /** POST /v1/ingest/item. */
  sendItem(item: IngestItemInput, options: SendOptions = {}): Promise<ItemResult> {
    return this.call<ItemResult>('/v1/ingest/item', { website_id: this.options.websiteId, item }, options);
  }

  /** POST /v1/ingest/delete. */
  deleteItems(
    ids: readonly string[],
    reason: DeleteReason = 'source_deleted',
    options: SendOptions = {},
  ): Promise<DeleteResult> {
    return this.call<DeleteResult>('/v1/ingest/delete', { website_id: this.options.websiteId, ids, reason }, options);
  }

  /** POST /v1/ingest/heartbeat. */
  heartbeat(input: HeartbeatInput, options: SendOptions = {}): Promise<HeartbeatResult> {
    return this.call<HeartbeatResult>(
      '/v1/ingest/heartbeat',
      { website_id: this.options.websiteId, ...input },
      options,
    );
  }

  /** POST /v1/ingest/schema. */
  putSchema(mappings: readonly FieldMapping[], options: SendOptions = {}): Promise<SchemaResult> {
    return this.call<SchemaResult>('/v1/ingest/schema', { website_id: this.options.websiteId, mappings }, options);
  }

  /** Signs and sends one logical operation, retrying per the policy; resolves with data. */
  async call<T>(path: string, body: unknown, options: SendOptions = {}): Promise<T> {
    // Serialised once: every attempt sends (and hashes) the same bytes.
    const bytes = Buffer.from(JSON.stringify(body), 'utf8');
    const idempotencyKey = options.idempotencyKey ?? randomUUID();
    for (let attempt = 1; ; attempt++) {
      const timestamp = Math.floor(Date.now() / 1000) + (this.options.clockOffsetSeconds ?? 0);
      const signed = signRequest({
        token: this.options.token,
        websiteId: this.options.websiteId,
        path,
        body: bytes,
        timestamp,
        signingKey: this.signingKey,
      });
      let status = 0;
      let code = 'network.error';
      let message = '';
      let retryAfter: number | undefined;
      let envelope: Envelope<T> | undefined;
      let replayed = false;
      try {
        const res = await request(new URL(path, this.options.baseUrl), {
          method: 'POST',
          body: bytes,
          dispatcher: this.options.dispatcher,
          headersTimeout: this.options.timeoutMs ?? 120_000,
          bodyTimeout: this.options.timeoutMs ?? 120_000,
          headers: {
            ...signed,
            'content-type': 'application/json',
            'idempotency-key': idempotencyKey,
            'x-connector-type': this.options.connectorType ?? 'custom',
            'x-connector-version': this.options.connectorVersion ?? CLIENT_VERSION,
            ...(this.options.siteDomain ? { 'x-site-domain': this.options.siteDomain } : {}),
          },
        });
        status = res.statusCode;
        retryAfter = parseRetryAfter(res.headers['retry-after']);
        replayed = res.headers['idempotent-replayed'] === 'true';
        const text = await res.body.text();
        try {
          envelope = JSON.parse(text) as Envelope<T>;
        } catch {
          envelope = undefined;
        }
        code = envelope?.error?.code ?? `http.${status}`;
        message = envelope?.error?.message ?? text.slice(0, 200);
      } catch (error) {
        message = (error as Error).message;
      }
      this.lastCall = { status, attempts: attempt, replayed, requestId: envelope?.meta?.requestId };
      if (envelope?.ok === true) return envelope.data as T;
      if (isRetryableStatus(status) && attempt < this.policy.maxAttempts) {
        const delayMs = retryDelayMs(this.policy, attempt, retryAfter);
        this.options.onRetry?.({ attempt, delayMs, status, code });
        await this.sleep(delayMs);
        continue;
      }
      throw new IngestError(
        message || `HTTP ${status}`,
        code,
        status,
        envelope?.error?.details ?? {},
        isRetryableStatus(status),
        envelope?.meta?.requestId,
        attempt,
      );
    }
  }
}
