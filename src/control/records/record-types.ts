import { z } from 'zod';
import { PLANS } from '../plans/index.js';
import { VERIFICATION_METHOD_INPUTS, canonicalMethodName } from './website-info.js';

export const ROLES = ['viewer', 'editor', 'organization_admin', 'organization_owner'] as const;
export type Role = (typeof ROLES)[number];

/** Each role includes those below it (docs/contract.md#roles). */
export function roleAtLeast(role: Role, minimum: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(minimum);
}

export const EmailSchema = z
  .email('must be an email address such as you@example.com')
  .max(320)
  .transform((e) => e.toLowerCase());

/** A bare host name: lowercase labels, at least one dot, no scheme, port or path. */
export const DomainSchema = z
  .string()
  .transform((d) => d.trim().toLowerCase().replace(/\.$/, ''))
  .pipe(
    z
      .string()
      .regex(
        /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/,
        'must be a host name such as example.com (no scheme, port or path)',
      ),
  );

export const PlanSchema = z.enum(PLANS);
/** A verification method by any of its names (the contract's or an alias), parsed to the contract's name. */
export const VerificationMethodInputSchema = z
  .enum(VERIFICATION_METHOD_INPUTS, {
    error: `must be one of ${VERIFICATION_METHOD_INPUTS.join(', ')}`,
  })
  .transform((name) => canonicalMethodName(name)!);

export interface UserRecord {
  id: string;
  email: string;
  createdAt: string;
}
export interface OrganizationRecord {
  id: string;
  name: string;
  slug: string;
  plan: (typeof PLANS)[number];
  createdAt: string;
}
export interface WebsiteRecord {
  id: string;
  organizationId: string;
  domain: string;
  name: string;
  defaultLanguage: string;
  createdAt: string;
}
