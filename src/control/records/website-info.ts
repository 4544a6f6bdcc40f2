import type { Plan } from '../plans/index.js';

/** The trust tiers a verification method gives (docs/contract.md#verification), strongest first. */
export const VERIFICATION_METHODS = ['dns_txt', 'plugin_signed', 'well_known', 'meta_tag', 'manual'] as const;
/** A trust tier (the name is older than the method names below: it is not what the API calls a method). */
export type VerificationMethod = (typeof VERIFICATION_METHODS)[number];

/** The verification methods by the contract's names: what every answer, row and event says. */
export const VERIFICATION_METHOD_NAMES = ['dns_txt', 'plugin', 'well_known_file', 'meta_tag', 'manual'] as const;
export type VerificationMethodName = (typeof VERIFICATION_METHOD_NAMES)[number];

/**
 * Other names a request or a command may use for a method: the contract's alias html_meta, and
 * the tier names plugin_signed and well_known, which `admin website create --verified` once took.
 */
export const VERIFICATION_METHOD_ALIASES = {
  html_meta: 'meta_tag',
  plugin_signed: 'plugin',
  well_known: 'well_known_file',
} as const satisfies Record<string, VerificationMethodName>;

/** Every name accepted on input: the contract's names, then the aliases. */
export const VERIFICATION_METHOD_INPUTS = [
  ...VERIFICATION_METHOD_NAMES,
  ...(Object.keys(VERIFICATION_METHOD_ALIASES) as Array<keyof typeof VERIFICATION_METHOD_ALIASES>),
] as const;

/** The contract's name of a method given by any of its names; null for null or a name of no method. */
export function canonicalMethodName(name: string | null | undefined): VerificationMethodName | null {
  if (name === null || name === undefined) return null;
  if ((VERIFICATION_METHOD_NAMES as readonly string[]).includes(name)) return name as VerificationMethodName;
  return Object.hasOwn(VERIFICATION_METHOD_ALIASES, name)
    ? VERIFICATION_METHOD_ALIASES[name as keyof typeof VERIFICATION_METHOD_ALIASES]
    : null;
}

const TIER_OF_METHOD: Readonly<Record<VerificationMethodName, VerificationMethod>> = {
  dns_txt: 'dns_txt',
  plugin: 'plugin_signed',
  well_known_file: 'well_known',
  meta_tag: 'meta_tag',
  manual: 'manual',
};

/** The trust tier a method (by any of its names) gives: the method drives the tier. */
export function tierOfMethod(name: string | null | undefined): VerificationMethod | null {
  const method = canonicalMethodName(name);
  return method === null ? null : TIER_OF_METHOD[method];
}

export const VERIFICATION_STATES = ['pending', 'verified', 'failed', 'grace', 'revoked'] as const;
export type VerificationState = (typeof VERIFICATION_STATES)[number];

const TIER_WEIGHT: Record<VerificationMethod, number> = {
  dns_txt: 1.0,
  plugin_signed: 0.9,
  well_known: 0.8,
  meta_tag: 0.7,
  manual: 0.5,
};
const STATE_FACTOR: Record<VerificationState, number> = {
  verified: 1.0,
  grace: 0.5,
  pending: 0,
  failed: 0,
  revoked: 0,
};

/**
 * Whether a website counts as verified: verified, or in grace (a re-check failed; re-verification
 * is due, not failed). The one check behind MCP's refusal, connector issuance and trust.json's tier.
 */
export function countsAsVerified(state: VerificationState): boolean {
  return state === 'verified' || state === 'grace';
}

/** trust_score = tier weight times state factor (docs/contract.md#verification). */
export function trustScore(method: VerificationMethod | null, state: VerificationState): number {
  if (method === null) return 0;
  return Math.round(TIER_WEIGHT[method] * STATE_FACTOR[state] * 1000) / 1000;
}

/**
 * What the extractor and the compiler need to know about one website. It comes from the control
 * database for a served website, or from fixtures/<name>/site.json for a fixture.
 */
export interface WebsiteInfo {
  websiteId: string;
  domain: string;
  /** Display name of the site; defaults to the domain. */
  brand: string;
  defaultLanguage: string;
  plan: Plan;
  verification: { method: VerificationMethod | null; state: VerificationState };
  /** Verified alias domains that item urls may also use. */
  aliases: string[];
}
