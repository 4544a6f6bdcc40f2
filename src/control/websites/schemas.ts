import { z } from 'zod';
import { LanguageTagSchema } from '../../platform/contract/ingest-item.js';
import { DomainSchema } from '../records/record-types.js';
import { TrustTierSchema, VerificationMethodNameSchema, VerificationStateSchema } from '../verification/schemas.js';

/**
 * The website routes' request and answer schemas (docs/websites.md "Routes"): the route layer
 * validates with them and the OpenAPI document is generated from them. Request bodies refuse
 * unknown fields (strict); answers are open objects.
 */

const NameSchema = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');
const BrandSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty (send null to use the name)')
  .max(200, 'must be at most 200 characters')
  .nullable();

export const OrganizationIdParamsSchema = z.object({ id: z.string().describe('The organization id (org_...)') });
export const WebsiteIdParamsSchema = z.object({ id: z.string().describe('The website id (web_...)') });
export const AliasParamsSchema = WebsiteIdParamsSchema.extend({
  domain: z
    .string()
    .transform((d) => d.trim().toLowerCase())
    .describe('The alias domain to remove, e.g. www.example.com'),
});

/** POST /v1/organizations/:id/websites. */
export const CreateWebsiteBodySchema = z.strictObject({
  domain: DomainSchema.describe(
    "The website's host name, e.g. example.com; it never changes and belongs to this website only",
  ),
  name: NameSchema.describe("The website's name"),
  brand: BrandSchema.optional().describe('The name AI consumers see (ai.json); null or absent: the name'),
  defaultLanguage: LanguageTagSchema.optional().describe("BCP-47 tag of the content's main language; default en"),
});

/** PATCH /v1/websites/:id: at least one field; the domain never changes (the route says what to do instead). */
export const UpdateWebsiteBodySchema = z
  .strictObject({
    name: NameSchema.optional().describe("The website's name"),
    brand: BrandSchema.optional().describe('The name AI consumers see; null: the name'),
    defaultLanguage: LanguageTagSchema.optional().describe("BCP-47 tag of the content's main language"),
  })
  .refine((body) => Object.keys(body).length > 0, 'give at least one of name, brand, defaultLanguage');

/** DELETE /v1/websites/:id: the domain typed again, so nobody deletes a website by accident. */
export const DeleteWebsiteBodySchema = z.strictObject({
  confirm: z
    .string({ error: "must be the website's domain" })
    .describe("The website's domain (case and surrounding spaces ignored)"),
});

/** POST /v1/websites/:id/transfer. */
export const TransferWebsiteBodySchema = z.strictObject({
  target_organization_id: z
    .string()
    .min(1, 'must name an organization')
    .describe('The organization to move the website to; the caller must be its organization_owner'),
});

/** POST /v1/websites/:id/aliases. */
export const AddAliasBodySchema = z.strictObject({
  domain: DomainSchema.describe("The alias host name, e.g. www.example.com; not any website's domain or alias yet"),
});

/** A website as every website route answers it (src/control/websites/view.ts). */
export const WebsiteSchema = z.object({
  id: z.string().describe('web_ followed by a ULID'),
  organizationId: z.string().describe('The organization the website belongs to'),
  domain: z.string().describe("The website's own host name, lowercase"),
  name: z.string(),
  brand: z.string().nullable().describe('The name AI consumers see; null: the name is used'),
  defaultLanguage: z.string().describe('BCP-47 tag'),
  createdAt: z.iso.datetime(),
  verification: z
    .object({
      state: VerificationStateSchema,
      method: VerificationMethodNameSchema.nullable().describe(
        'What proved the current (or last) verification; null before any',
      ),
      trustTier: TrustTierSchema,
      trustScore: z.number().min(0).max(1).describe('Tier weight times state factor (docs/contract.md#verification)'),
    })
    .describe("The verification of the website's own domain, in short (GET .../verification has the whole record)"),
  aliases: z
    .array(
      z.object({
        domain: z.string(),
        state: VerificationStateSchema,
        verified: z.boolean().describe('Verified or in grace: items may use it as their url host'),
      }),
    )
    .describe('The alias domains, by name'),
});

export type CreateWebsiteBody = z.input<typeof CreateWebsiteBodySchema>;
export type UpdateWebsiteBody = z.input<typeof UpdateWebsiteBodySchema>;
export type Website = z.output<typeof WebsiteSchema>;
