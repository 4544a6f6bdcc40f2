/**
 * Every error code of the contract (docs/contract.md#envelope), with its
 * HTTP status and whether a client may retry. docs/errors.md is checked against this table by a
 * test; a retired code is never reused for another meaning.
 */
export interface ErrorCodeInfo {
  readonly status: number;
  readonly retryable: boolean;
  readonly description: string;
}

export const ERROR_CODES = {
  'validation.failed': {
    status: 422,
    retryable: false,
    description: 'The body, query or headers fail the schema; details.fields[] names each problem.',
  },
  'validation.missing_idempotency_key': {
    status: 400,
    retryable: false,
    description: 'An ingest request came without an Idempotency-Key header.',
  },
  'auth.unauthenticated': {
    status: 401,
    retryable: false,
    description: 'No bearer credential, or a bad or expired one.',
  },
  'auth.invalid_credentials': {
    status: 401,
    retryable: false,
    description: 'Login with a wrong email or password, or a wrong current password on password change.',
  },
  'auth.mfa_required': {
    status: 401,
    retryable: false,
    description: 'Login needs a TOTP or recovery code (details.mfa = "totp").',
  },
  'auth.mfa_invalid': {
    status: 401,
    retryable: false,
    description: 'The TOTP code or recovery code is wrong, outside the one-step window, or already used.',
  },
  'auth.factor_locked': {
    status: 429,
    retryable: false,
    description:
      'Two-factor codes of this account are refused for a while after 5 wrong ones in a row; wait for Retry-After seconds (details.lockedUntil).',
  },
  'auth.mfa_already_enabled': {
    status: 409,
    retryable: false,
    description: 'Two-factor sign-in is already on; disable it before enrolling again.',
  },
  'auth.mfa_not_enrolled': {
    status: 409,
    retryable: false,
    description: 'Two-factor sign-in is off, or its setup was not started (POST /v1/auth/2fa/setup first).',
  },
  'auth.mail_token_invalid': {
    status: 400,
    retryable: false,
    description: 'The mailed token is unknown or was issued for another purpose.',
  },
  'auth.mail_token_expired': {
    status: 410,
    retryable: false,
    description: 'The mailed token expired (reset after 1 h, verification after 24 h); request a new mail.',
  },
  'auth.mail_token_used': {
    status: 410,
    retryable: false,
    description: 'The mailed token was already used; each works once.',
  },
  'auth.idp_token_invalid': {
    status: 401,
    retryable: false,
    description: 'The identity-provider ID token is malformed, expired, badly signed, or for another issuer or client.',
  },
  'auth.idp_email_unverified': {
    status: 403,
    retryable: false,
    description: 'The identity provider has not verified the email address of this ID token.',
  },
  'auth.idp_unconfigured': {
    status: 503,
    retryable: false,
    description: 'Google sign-in is not configured on this service (setting googleClientId).',
  },
  'auth.refresh_reused': {
    status: 401,
    retryable: false,
    description: 'A rotated refresh token was presented again; the session family is revoked.',
  },
  'auth.invalid_signature': {
    status: 401,
    retryable: false,
    description:
      "HMAC mismatch, a missing X-Signature, X-Body-Sha256 not matching the body, or a secret that is none of the connector's (neither its current nor a recently rotated-away one).",
  },
  'auth.timestamp_skew': {
    status: 401,
    retryable: false,
    description:
      'X-Timestamp is more than 300 s away from the server clock, or is in milliseconds (send unix seconds).',
  },
  'auth.nonce_replay': {
    status: 401,
    retryable: false,
    description: 'X-Nonce was already used within the replay window.',
  },
  'auth.token_revoked': {
    status: 401,
    retryable: false,
    description:
      'The connector is revoked (deleted), suspended, or unknown, or the token is a stale token version (replaced by a rotation: use the newest).',
  },
  'auth.scope_violation': {
    status: 403,
    retryable: false,
    description: "website_id is not the connector's, or an item type is outside its scope.",
  },
  'auth.tenant_mismatch': {
    status: 403,
    retryable: false,
    description: "A mutation of another organization's resource.",
  },
  'auth.forbidden': { status: 403, retryable: false, description: "The caller's role is too low for this route." },
  'ingest.duplicate': {
    status: 409,
    retryable: false,
    description: 'The same Idempotency-Key was used with a different body.',
  },
  'ingest.schema_conflict': {
    status: 409,
    retryable: false,
    description: 'A field mapping conflicts with an existing one.',
  },
  'ingest.batch_too_large': { status: 413, retryable: false, description: 'More than 500 items in one batch.' },
  'ingest.batch_rejected': {
    status: 422,
    retryable: false,
    description: 'partial was false and at least one item is invalid (details.items[]).',
  },
  'service.unavailable': {
    status: 503,
    retryable: true,
    description: 'Not ready, the nonce store failed, or the same Idempotency-Key is still in flight.',
  },
  'service.storage_unavailable': {
    status: 503,
    retryable: true,
    description:
      "The data directory's disk is full, below the free-space floor (minFreeDiskMb), or failing (details.reason: disk_full, below_floor, io_error); nothing is lost, retry later with the same Idempotency-Key.",
  },
  'quota.rate_limited': {
    status: 429,
    retryable: true,
    description: 'Too many requests; wait for Retry-After seconds.',
  },
  'billing.unconfigured': {
    status: 503,
    retryable: false,
    description: 'Checkout and portal are not available on this service.',
  },
  'entitlement.capability_missing': {
    status: 403,
    retryable: false,
    description: 'The plan lacks the capability this needs.',
  },
  'entitlement.limit_reached': {
    status: 403,
    retryable: false,
    description: 'The plan quota is used up (details.limit, details.used).',
  },
  'website.not_found': { status: 404, retryable: false, description: 'Unknown website, or one the caller cannot see.' },
  'website.alias_not_found': {
    status: 404,
    retryable: false,
    description: "The domain is neither the website's own domain nor one of its aliases.",
  },
  'verification.challenge_required': {
    status: 409,
    retryable: false,
    description:
      'Nothing to check: no challenge was issued, the challenge expired (7 days without a passing check), or the verification failed or was revoked; issue a challenge (POST .../verification/challenge; the token stays the same) first.',
  },
  'organization.not_found': {
    status: 404,
    retryable: false,
    description: 'Unknown organization, or one the caller cannot see.',
  },
  'organization.last_owner': {
    status: 409,
    retryable: false,
    description:
      'The change would leave the organization without an owner: make another member organization_owner first.',
  },
  'organization.member_exists': {
    status: 409,
    retryable: false,
    description: 'The user is already a member; change the role with PATCH .../members/:userId.',
  },
  'organization.not_empty': {
    status: 409,
    retryable: false,
    description: 'The organization still has websites: delete them first, or erase the organization.',
  },
  'organization.transfer_pending': {
    status: 409,
    retryable: false,
    description: 'A transfer of the organization is already waiting for its recipient; cancel it first.',
  },
  'organization.transfer_not_found': {
    status: 404,
    retryable: false,
    description: 'No transfer of the organization waits for acceptance.',
  },
  'member.not_found': { status: 404, retryable: false, description: 'The user is not a member of this organization.' },
  'organization.api_key_not_found': {
    status: 404,
    retryable: false,
    description: 'Unknown API key in this organization.',
  },
  'organization.invitation_not_found': {
    status: 404,
    retryable: false,
    description: 'No pending invitation of that id in this organization (it was accepted, withdrawn or has expired).',
  },
  'connector.not_found': { status: 404, retryable: false, description: 'Unknown connector.' },
  'webhook.not_found': { status: 404, retryable: false, description: 'Unknown webhook subscription of this website.' },
  'webhook.delivery_not_found': {
    status: 404,
    retryable: false,
    description: 'Unknown delivery of this webhook subscription.',
  },
  'webhook.disabled': {
    status: 409,
    retryable: false,
    description:
      'The webhook subscription is disabled (by hand, 410 Gone from the receiver, or 3 days failing); enable it with PATCH {enabled: true} first.',
  },
  'user.not_found': { status: 404, retryable: false, description: 'Unknown user.' },
  'entity.not_found': { status: 404, retryable: false, description: 'Unknown entity in this website graph.' },
  'search.vectors_unavailable': {
    status: 409,
    retryable: false,
    description:
      'mode=vector on a website without vectors: embeddings are off, its plan lacks cap.embeddings, or no chunk is embedded yet; use mode=keyword.',
  },
  'search.embeddings_failed': {
    status: 503,
    retryable: true,
    description:
      'The embeddings provider could not embed the query for mode=vector or hybrid; retry, or use mode=keyword.',
  },
  'version.not_found': { status: 404, retryable: false, description: 'Unknown published node version.' },
  'job.not_found': {
    status: 404,
    retryable: false,
    description: 'Unknown job, or one that does not act on this website.',
  },
  'node.not_found': {
    status: 404,
    retryable: false,
    description:
      'Unknown node file; on the MCP endpoint, the website has no live node (nothing published yet, or taken down).',
  },
  'node.gone': {
    status: 410,
    retryable: false,
    description: 'The node was taken down, or the file of an earlier version was deleted by a gdpr_erasure.',
  },
  'publish.conflict': {
    status: 409,
    retryable: true,
    description: 'Another publish of the same site holds the lock, or a version built later is already live.',
  },
  'publish.atomic_conflict': {
    status: 409,
    retryable: true,
    description: 'A manifest-referenced file is missing at publish.',
  },
  'publish.validation_failed': {
    status: 422,
    retryable: false,
    description: 'The compiled node fails validation; nothing was published.',
  },
  'publish.drop_gate': {
    status: 409,
    retryable: false,
    description: 'The record count falls more than the allowed share against the live version.',
  },
  'publish.golden_mismatch': {
    status: 409,
    retryable: false,
    description: 'The compiled node differs from the --golden directory.',
  },
  'publish.nothing_to_publish': {
    status: 409,
    retryable: false,
    description: 'Nothing has been ingested for the website yet (it has no graph); push content, then publish.',
  },
  'publish.version_purged': {
    status: 409,
    retryable: false,
    description:
      'The version was purged by a gdpr_erasure (its files holding erased items are deleted) or is marked for that purge; it cannot be served again.',
  },
  'node.uuid_leak': {
    status: 500,
    retryable: false,
    description: 'A uuid stands where a stable id is required; nothing is published.',
  },
  'website.not_verified': {
    status: 409,
    retryable: false,
    description:
      "The website's ownership is not verified: a connector token is issued only for a verified (or in-grace) website unless the operator sets allowUnverifiedConnectors, and MCP serves only such a website. Publish does not enforce it.",
  },
  'privacy.erasure_forbidden': {
    status: 403,
    retryable: false,
    description:
      'The organization may not be erased (or deleted) now: a transfer of it is pending; cancel the transfer first.',
  },
  'privacy.subject_not_found': { status: 404, retryable: false, description: 'The erasure subject does not exist.' },
  'privacy.erasure_in_progress': {
    status: 409,
    retryable: false,
    description: 'An erasure of this organization is already running.',
  },
  'route.not_found': { status: 404, retryable: false, description: 'No route matches this method and path.' },
  'request.method_not_allowed': {
    status: 405,
    retryable: false,
    description:
      'The path takes other methods than this one; the Allow header lists them (the MCP endpoint takes POST only: it keeps no sessions and opens no event stream).',
  },
  'request.body_too_large': {
    status: 413,
    retryable: false,
    description: 'The body is over the route limit: 16 MiB on /v1/ingest/*, 1 MiB elsewhere.',
  },
  'request.unsupported_media_type': {
    status: 415,
    retryable: false,
    description: 'The body is not application/json, or its Content-Type names a charset other than UTF-8.',
  },
  'request.malformed': {
    status: 400,
    retryable: false,
    description:
      'The request is not well-formed HTTP: a bad percent-encoding in the URL, a malformed request line or header, a body shorter or longer than Content-Length.',
  },
  'request.timeout': {
    status: 408,
    retryable: true,
    description:
      'The client did not send the headers or the body in time (headersTimeoutMs, bodyTimeoutMs, ingestBodyTimeoutMs); the connection is closed.',
  },
  'request.uri_too_long': {
    status: 414,
    retryable: false,
    description: 'A path segment is longer than 256 characters.',
  },
  'request.header_too_large': {
    status: 431,
    retryable: false,
    description: 'The request line and headers are larger than 16 KiB.',
  },
  'internal.error': {
    status: 500,
    retryable: false,
    description: 'An unexpected server error; the request id helps find it in the logs.',
  },
} as const satisfies Record<string, ErrorCodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function errorInfo(code: ErrorCode): ErrorCodeInfo {
  return ERROR_CODES[code];
}
