/** Plans and their plan-derived constants (docs/contract.md#plans). */
export const PLANS = ['free', 'pro', 'business'] as const;
export type Plan = (typeof PLANS)[number];

export const VERIFICATION_METHODS = ['dns_txt', 'plugin_signed', 'well_known', 'meta_tag', 'manual'] as const;
export type VerificationMethod = (typeof VERIFICATION_METHODS)[number];

export const VERIFICATION_STATES = ['pending', 'verified', 'failed', 'grace', 'revoked'] as const;
export type VerificationState = (typeof VERIFICATION_STATES)[number];

export type Capability = 'cap.core' | 'cap.advanced' | 'cap.mcp' | 'cap.webhooks' | 'cap.embeddings';

const CAPABILITIES: Record<Plan, readonly Capability[]> = {
  free: ['cap.core'],
  pro: ['cap.advanced', 'cap.core', 'cap.mcp', 'cap.webhooks'],
  business: ['cap.advanced', 'cap.core', 'cap.embeddings', 'cap.mcp', 'cap.webhooks'],
};

/** Capabilities of a plan, sorted (manifest.capabilities lists them sorted). */
export function capabilitiesOf(plan: Plan): Capability[] {
  return [...CAPABILITIES[plan]].sort();
}

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
