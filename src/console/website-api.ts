/**
 * The answers the website, verification and connector pages read, as the routes define them
 * (src/control/websites/schemas.ts, src/control/verification/schemas.ts, src/control/connectors/schemas.ts).
 */
import type { Website } from './api.js';

export type VerificationState = 'pending' | 'verified' | 'failed' | 'grace' | 'revoked';

/** A website with the fields its overview edits (the short Website of api.ts lacks them). */
export interface WebsiteDetail extends Website {
  brand: string | null;
  defaultLanguage: string;
  aliases: { domain: string; state: VerificationState; verified: boolean }[];
}

/** Where to put the proof, per method: one of four shapes. */
export type Instructions =
  | { type: 'TXT'; name: string; value: string }
  | { url: string; tag: string; where: string }
  | { url: string; content: string; contentType: 'text/plain' }
  | { heartbeatField: 'verification_token'; value: string; where: string };

export interface DomainVerification {
  domain: string;
  alias: boolean;
  state: VerificationState;
  method: string | null;
  trustTier: string;
  trustScore: number;
  challenge: { method: ChallengeMethod; token: string; proof: string; instructions: Instructions } | null;
  challengedAt: string | null;
  lastCheckedAt: string | null;
  verifiedAt: string | null;
  graceUntil: string | null;
  failureCount: number;
  lastFailureReason: string | null;
  challengeExpiresAt: string | null;
}

export interface VerificationEvent {
  at: string;
  domain: string;
  event: string;
  method: string | null;
  result: string;
  fromState: VerificationState;
  toState: VerificationState;
  evidence: string;
  actor: string;
}

/** GET /v1/websites/:id/verification. */
export interface WebsiteVerification extends DomainVerification {
  websiteId: string;
  aliases: DomainVerification[];
  history: VerificationEvent[];
}

/** POST .../verification/check. */
export interface VerificationCheck extends DomainVerification {
  check: { method: ChallengeMethod; passed: boolean; evidence: string };
}

/** The methods a challenge may name (the API's names; answers use these). */
export const CHALLENGE_METHODS = ['dns_txt', 'meta_tag', 'well_known_file', 'plugin'] as const;
export type ChallengeMethod = (typeof CHALLENGE_METHODS)[number];

export interface Connector {
  id: string;
  name: string;
  connectorType: string;
  scope: { websiteId: string; sourceTypes: string[] };
  tokenVersion: number;
  status: 'active' | 'suspended' | 'revoked';
  connectorState: string | null;
  lastHeartbeatAt: string | null;
  stale: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface ConnectorWithToken extends Connector {
  token: string;
}

/** The item types a connector may be allowed to send (src/platform/contract/ingest-item.ts). */
export const SOURCE_TYPES = [
  'page',
  'post',
  'product',
  'category',
  'collection',
  'faq',
  'review',
  'event',
  'location',
  'profile',
  'doc',
  'media',
  'service',
  'custom',
] as const;
