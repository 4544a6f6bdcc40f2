import { z } from 'zod';
import { PLATFORM_ROLES } from '../access/index.js';
import { API_KEY_ROLES, TRANSFER_STATES, EmailSchema, PlanSchema, ROLES } from '../records/index.js';

/**
 * The requests and answers of the organization routes (docs/organizations.md "Routes"): each
 * route declares these, so one schema validates the request and describes it in the OpenAPI
 * document, and the typed client takes its types from here. Bodies are strict (an unknown field
 * is 422 validation.failed); answers are described as the presenters build them.
 */

// Requests

export const OrganizationParamsSchema = z.object({ id: z.string().describe('The organization id (org_...)') });
export const MemberParamsSchema = OrganizationParamsSchema.extend({
  userId: z.string().describe('The user id of the member (usr_...)'),
});
export const ApiKeyParamsSchema = OrganizationParamsSchema.extend({
  keyId: z.string().describe('The API key id (key_...)'),
});
export const InvitationParamsSchema = OrganizationParamsSchema.extend({
  invitationId: z.string().describe('The invitation id (inv_...)'),
});
/**
 * The token is checked by the handler (400 auth.mail_token_invalid
 * for one the service did not mail), as every mailed token is.
 */
export const TransferTokenParamsSchema = z.object({
  token: z.string().describe('The single-use token of the transfer mail'),
});

const OrganizationNameSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(200, 'must be at most 200 characters')
  .describe('The display name, 1 to 200 characters');
const MemberRoleSchema = z.enum(ROLES, { error: `must be one of ${ROLES.join(', ')}` });

/** POST /v1/organizations: the caller becomes its organization_owner. */
export const CreateOrganizationBodySchema = z.strictObject({ name: OrganizationNameSchema });
/** PATCH /v1/organizations/:id: a rename; the slug stays. */
export const UpdateOrganizationBodySchema = z.strictObject({ name: OrganizationNameSchema });

/** POST /v1/organizations/:id/members: an existing user joins at once, an unknown address is invited. */
export const AddMemberBodySchema = z.strictObject({
  email: EmailSchema.describe('The address of the user to add or invite'),
  role: MemberRoleSchema.describe("At most the caller's own role"),
});
/** PATCH /v1/organizations/:id/members/:userId. */
export const ChangeMemberRoleBodySchema = z.strictObject({
  role: MemberRoleSchema.describe("The new role, at most the caller's own"),
});

/**
 * POST /v1/organizations/:id/api-keys: both fields have defaults,
 * so no body (or `{}`) makes an editor key named "api key".
 */
export const CreateApiKeyBodySchema = z
  .strictObject({
    name: z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(200, 'must be at most 200 characters')
      .default('api key')
      .describe('A name to tell keys apart'),
    role: z
      .enum(API_KEY_ROLES, {
        error: `must be one of ${API_KEY_ROLES.join(', ')} (an API key is never organization_owner)`,
      })
      .default('editor')
      .describe("The role the key acts with, at most the caller's own; never organization_owner"),
  })
  .prefault({});

/** POST /v1/organizations/:id/transfer. */
export const StartTransferBodySchema = z.strictObject({
  email: EmailSchema.describe('The address of the new owner; the token is mailed there'),
});

/** The routes that take no body (transfer cancel and accept): nothing, or `{}`. */
export const NoBodySchema = z.strictObject({}).optional();

/** POST /v1/organizations/:id/erase: the typed confirmation, checked against the organization by the handler. */
export const EraseOrganizationBodySchema = z.strictObject({
  confirm: z
    .string({ error: "must be the organization's slug or name" })
    .min(1, "must be the organization's slug or name")
    .max(400)
    .describe("The organization's slug or its name, typed to confirm"),
});

// Answers

const TimestampSchema = z.string().describe('ISO-8601');

/**
 * A member's role in an organization, or a platform role (admin,
 * super_admin) for the service's own staff, who act in every organization.
 */
const CallerRoleSchema = z.enum([...ROLES, ...PLATFORM_ROLES]);

/** An organization with the caller's role in it (the routes add `role` to the record). */
export const OrganizationSchema = z.object({
  id: z.string().describe('The organization id (org_...)'),
  name: z.string(),
  slug: z.string().describe('Made from the name at creation (acme-bikes, then acme-bikes-2); never changes'),
  plan: PlanSchema.describe('The plan the operator set (`nodectl admin org set-plan`)'),
  createdAt: TimestampSchema,
  role: CallerRoleSchema.describe("The caller's role in the organization (an API key: the key's role)"),
});

/** A member as lists and member routes show it (records/member-rows.ts MemberRecord). */
export const MemberSchema = z.object({
  userId: z.string().describe('The user id (usr_...)'),
  email: z.string(),
  role: z.enum(ROLES),
  createdAt: TimestampSchema.describe('When the user joined (ISO-8601)'),
});

/** An invitation of an address without an account (members.ts presentInvitation; never its token). */
export const InvitationSchema = z.object({
  id: z.string().describe('The invitation id (inv_...); inviting the address again keeps it'),
  email: z.string(),
  role: z.enum(ROLES).describe('The role the address gets when it joins'),
  createdAt: TimestampSchema,
  expiresAt: TimestampSchema.describe('After this the mailed token no longer works (ISO-8601)'),
});

/** A pending invitation as GET .../invitations lists it (invitation-routes.ts presentPendingInvitation). */
export const PendingInvitationSchema = InvitationSchema.extend({
  invitedBy: z.string().nullable().describe('The user who invited (usr_...); null when nobody signed in did'),
  invitedByEmail: z.string().nullable().describe("That user's address; null once the account is gone"),
});

/** 201 of POST .../members: an existing user is a member now. */
export const AddedMemberSchema = z.object({ member: MemberSchema });
/** 202 of POST .../members: an unknown address was invited; it joins once it signs up and verifies the address. */
export const InvitedMemberSchema = z.object({
  invitation: InvitationSchema,
  mailSent: z
    .boolean()
    .describe('Whether the invitation mail went out (false: the mail transport failed; invite again to resend)'),
});
/** PATCH .../members/:userId. */
export const ChangedMemberSchema = z.object({ member: MemberSchema });

/** An API key as lists show it (api-key-routes.ts presentKey): the secret and its hash never leave the server. */
export const ApiKeySchema = z.object({
  id: z.string().describe('The key id (key_...)'),
  name: z.string(),
  role: z.enum(API_KEY_ROLES),
  prefix: z.string().describe('The first characters of the key (nk_live_ and 4 more), to recognise it'),
  createdBy: z.string().nullable().describe('The user who made it; null for a key the operator made at the shell'),
  createdAt: TimestampSchema,
  revokedAt: z.string().nullable().describe('When it was revoked (ISO-8601); null while it works'),
});
/** 201 of POST .../api-keys: the only answer that holds the key. */
export const CreatedApiKeySchema = ApiKeySchema.extend({
  key: z
    .string()
    .describe(
      'The key itself (nk_live_ and 32 base62 characters), shown this once: send it as X-Api-Key or Authorization: Bearer',
    ),
});

/** A transfer of an organization (transfers.ts presentTransfer). */
export const TransferSchema = z.object({
  id: z.string(),
  organizationId: z.string(),
  email: z.string().describe('The address of the recipient'),
  state: z
    .enum(TRANSFER_STATES)
    .describe(
      'pending until the recipient accepts, accepted while org.transfer.execute runs, then completed; or cancelled, or expired after 7 days',
    ),
  jobId: z.string().nullable().describe('The org.transfer.execute job, once accepted'),
  createdAt: TimestampSchema,
  expiresAt: TimestampSchema.describe('The mailed token works until then (7 days; ISO-8601)'),
});
/** 201 of POST .../transfer. */
export const StartedTransferSchema = z.object({
  transfer: TransferSchema,
  mailSent: z
    .boolean()
    .describe(
      'Whether the transfer mail went out (false: the mail transport failed; cancel and start again to resend)',
    ),
});
/** POST .../transfer/cancel. */
export const CancelledTransferSchema = z.object({ transfer: TransferSchema });
/** 202 of POST /v1/organizations/transfers/:token/accept. */
export const AcceptedTransferSchema = z.object({
  job_id: z.string().describe('The org.transfer.execute job that makes the recipient organization_owner'),
  transfer: TransferSchema,
});

/** 202 of POST .../erase. */
export const ErasureJobSchema = z.object({
  job_id: z.string().describe('The org.erase job that removes everything of the organization'),
});

/** One row of the audit log (records/audit.ts AuditRecord). */
export const AuditEntrySchema = z.object({
  id: z.string().describe('The entry id (aud_...)'),
  actor: z.object({
    kind: z
      .enum(['user', 'api_key', 'system', 'operator'])
      .describe('A user, an API key, the service itself (a job) or the operator at the shell'),
    id: z.string().nullable().describe('The user or key id; null for system and operator'),
  }),
  action: z.string().describe('area.verb_past, e.g. member.added, api_key.revoked'),
  target: z.string().nullable().describe('What was acted on: a user id, key id, website id or address'),
  requestId: z.string().nullable().describe('The request that did it; null for jobs and the shell'),
  details: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))
    .describe('At most 16 flat values; never a secret'),
  createdAt: TimestampSchema,
});

/**
 * The only answer of POST /v1/billing/checkout and /portal: 503 billing.unconfigured. The document
 * describes error answers from config.errors (this schema's place is taken by that description);
 * declaring it keeps the routes from reading as undescribed.
 */
export const BillingUnconfiguredSchema = z.object({
  ok: z.literal(false),
  error: z.object({
    code: z.literal('billing.unconfigured'),
    message: z.string(),
    details: z.record(z.string(), z.unknown()),
    retryable: z.boolean(),
  }),
  meta: z.object({ requestId: z.string() }),
});
