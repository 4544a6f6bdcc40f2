import { z } from 'zod';
import { DomainSchema, VERIFICATION_METHODS, VERIFICATION_STATES } from '../records/index.js';
import { CHALLENGE_METHODS, METHOD_NAMES, toChallengeMethod } from './methods.js';

/**
 * The verification routes' request and answer schemas (docs/verification.md): the route layer
 * validates with them and the OpenAPI document is generated from them.
 */

export const VerificationStateSchema = z
  .enum(VERIFICATION_STATES)
  .describe('pending, verified, failed, grace (a re-check failed; half trust for 7 days) or revoked');
/** What proved a domain: a challenge method, or manual (granted by a platform operator). */
export const VerificationMethodNameSchema = z.enum([...CHALLENGE_METHODS, 'manual']);
export const TrustTierSchema = z
  .enum([...VERIFICATION_METHODS, 'unverified'])
  .describe('The trust tier the proving method gives while verified or in grace; unverified otherwise');

/**
 * The website in the path (src/control/websites imports this folder, so its own params schema cannot be imported here).
 */
export const VerificationParamsSchema = z.object({ id: z.string().describe('The website id (web_...)') });

const AliasOrOwnDomainSchema = DomainSchema.describe(
  "The website's own domain or one of its aliases; default the website's own domain",
);

/** POST /v1/websites/:id/verification/challenge. */
export const ChallengeBodySchema = z.strictObject({
  method: z
    .enum(METHOD_NAMES, {
      error: `must be one of ${METHOD_NAMES.join(', ')} (manual is granted by a platform operator: nodectl admin website verify --manual)`,
    })
    .transform(toChallengeMethod)
    .describe(
      'How the owner will prove ownership; html_meta, plugin_signed and well_known name meta_tag, plugin and well_known_file (answers use those)',
    ),
  domain: AliasOrOwnDomainSchema.optional(),
});

/** POST /v1/websites/:id/verification/check: no body, `{}`, or the domain to check. */
export const CheckBodySchema = z.strictObject({ domain: AliasOrOwnDomainSchema.optional() }).optional();

const ChallengeMethodSchema = z.enum(CHALLENGE_METHODS);
const isoTime = (what: string) => z.iso.datetime().nullable().describe(what);

/** Where to put the proof, per method (docs/verification.md "What to put where"). */
const InstructionsSchema = z
  .union([
    z.object({
      type: z.literal('TXT'),
      name: z.string().describe('The DNS name of the TXT record'),
      value: z.string().describe("The TXT record's text"),
    }),
    z.object({
      url: z.string().describe('The home page'),
      tag: z.string().describe('The meta tag to put there'),
      where: z.string(),
    }),
    z.object({
      url: z.string().describe('Where the file is fetched'),
      content: z.string().describe('A line the file must hold'),
      contentType: z.literal('text/plain'),
    }),
    z.object({ heartbeatField: z.literal('verification_token'), value: z.string(), where: z.string() }),
  ])
  .describe(
    'dns_txt: {type, name, value}; meta_tag: {url, tag, where}; well_known_file: {url, content, contentType}; plugin: {heartbeatField, value, where}',
  );

/** One domain's verification as the routes answer it (src/control/verification/view.ts). */
export const DomainVerificationSchema = z.object({
  domain: z.string(),
  alias: z.boolean().describe("True for an alias, false for the website's own domain"),
  state: VerificationStateSchema,
  method: VerificationMethodNameSchema.nullable().describe(
    'What proved the current (or last) verification; null before any',
  ),
  trustTier: TrustTierSchema,
  trustScore: z.number().min(0).max(1).describe('Tier weight times state factor (docs/contract.md#verification)'),
  challenge: z
    .object({
      method: ChallengeMethodSchema,
      token: z.string().describe("The domain's token: made at its first challenge, kept after"),
      proof: z.string().describe('nodectl-verify=<token>: the text every proof carries'),
      instructions: InstructionsSchema,
    })
    .nullable()
    .describe('The open challenge; null before the first'),
  challengedAt: isoTime('When the last challenge was issued'),
  lastCheckedAt: isoTime('When the proof was last read'),
  verifiedAt: isoTime('When the current verification was proved'),
  graceUntil: isoTime('When grace ends and the verification is revoked, unless a check passes first'),
  failureCount: z.number().int().min(0).describe('Failed checks since the last that passed'),
  lastFailureReason: z
    .string()
    .nullable()
    .describe(
      'What the latest check read when it failed (the TXT records, the fetch, the error); null when it passed or none failed',
    ),
  challengeExpiresAt: isoTime(
    'Pending only: until when the open challenge may be checked (7 days after it was issued; failed checks do not shorten it); then the domain is failed and needs a new challenge (same token)',
  ),
});

/** One step of the record, newest first in GET .../verification. */
export const VerificationEventSchema = z.object({
  at: z.iso.datetime(),
  domain: z.string(),
  event: z.enum(['challenge', 'check', 'recheck', 'plugin_heartbeat', 'lapse', 'manual']),
  method: z.string().nullable(),
  result: z.enum(['issued', 'passed', 'failed', 'lapsed', 'granted']),
  fromState: VerificationStateSchema,
  toState: VerificationStateSchema,
  evidence: z
    .string()
    .describe("What was read (TXT records, the tag, the file's start, the error), at most 1,000 characters"),
  actor: z.string().describe('user:<id>, api_key:<id>, connector:<id>, operator or system'),
});

/** GET /v1/websites/:id/verification: the own domain's record, each alias's, and the latest 20 steps. */
export const WebsiteVerificationSchema = DomainVerificationSchema.extend({
  websiteId: z.string(),
  aliases: z.array(DomainVerificationSchema).describe("The alias domains' verifications, by name"),
  history: z.array(VerificationEventSchema).describe("The latest 20 steps of the website's domains, newest first"),
});

/** POST .../verification/check: the domain's record after the check, and what the check found. */
export const VerificationCheckSchema = DomainVerificationSchema.extend({
  check: z.object({
    method: ChallengeMethodSchema.describe('The method that decided'),
    passed: z.boolean(),
    evidence: z.string().describe('What each method tried read, in order, separated by " | "'),
  }),
});

export type ChallengeBody = z.input<typeof ChallengeBodySchema>;
export type DomainVerificationAnswer = z.output<typeof DomainVerificationSchema>;
