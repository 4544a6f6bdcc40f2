/**
 * The two shared-state stores of signed ingest. The embedded default keeps them in control.sqlite
 * (sqlite.ts); a Redis driver can implement the same interfaces so several daemons share them.
 * Both run the same conformance suite (test/ingest/endpoints/stores.app.test.ts).
 */

/** Replay guard for X-Nonce: an atomic set-if-absent with expiry. */
export interface NonceStore {
  /**
   * Records the nonce for `ttlMs` and returns true, or returns false when it is already recorded
   * and not expired. Throws when the store is unreachable (the caller fails closed with 503).
   */
  claim(scope: string, nonce: string, nowMs: number, ttlMs: number): Promise<boolean>;
  /**
   * Resolves once every claim made so far survives power loss; the route awaits it before it
   * answers. A store whose writes are durable when they resolve leaves it out.
   */
  flush?(): Promise<void>;
}

/** What a request with an Idempotency-Key finds when it starts. */
export type IdempotencyBegin =
  | { outcome: 'started' }
  | { outcome: 'replay'; statusCode: number; response: string }
  | { outcome: 'in_flight' }
  | { outcome: 'conflict' };

/** The lease of a request that starts under an Idempotency-Key. */
export interface InFlightLease {
  /** Longest time the record counts as in flight, even if its owner is never judged gone. */
  ttlMs: number;
  /** The process handling the request (in-flight-owner.ts). */
  owner: string;
  /** True when another record's owner is certainly dead: its record is abandoned, not in flight. */
  isOwnerGone(owner: string): boolean;
}

/** Idempotency-Key records, scoped to one connector (docs/contract.md#idempotency). */
export interface IdempotencyStore {
  /**
   * Atomically starts a request under (scope, key): `started` when the key is new (or its record
   * expired, or was in flight in a process that is gone), `replay` with the cached response when a
   * completed request had the same body, `conflict` when the body differs, `in_flight` when the same
   * body is still being handled.
   */
  begin(scope: string, key: string, bodySha256: string, nowMs: number, lease: InFlightLease): Promise<IdempotencyBegin>;
  /** Stores the finished response for `ttlMs`. */
  complete(
    scope: string,
    key: string,
    statusCode: number,
    response: string,
    nowMs: number,
    ttlMs: number,
  ): Promise<void>;
  /** Forgets an in-flight record (the request failed in a way a retry may fix). */
  release(scope: string, key: string): Promise<void>;
  /** Forgets every in-flight record whose owner is gone (run at daemon start); returns how many. */
  releaseAbandoned(isOwnerGone: (owner: string) => boolean): Promise<number>;
  /** Resolves once every record written so far survives power loss (as NonceStore.flush). */
  flush?(): Promise<void>;
}
