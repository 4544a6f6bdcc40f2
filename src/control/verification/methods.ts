import type { VerificationMethod as TrustTier } from '../records/website-info.js';

/** The ownership proofs a website owner can place (docs/contract.md#verification); `manual` is granted, never checked. */
export const CHALLENGE_METHODS = ['dns_txt', 'meta_tag', 'well_known_file', 'plugin'] as const;
export type ChallengeMethod = (typeof CHALLENGE_METHODS)[number];
export type Method = ChallengeMethod | 'manual';

/** Names a request may use for a method: the contract's, plus its alias html_meta for meta_tag. */
export const METHOD_NAMES = [...CHALLENGE_METHODS, 'html_meta'] as const;

export function toChallengeMethod(name: (typeof METHOD_NAMES)[number]): ChallengeMethod {
  return name === 'html_meta' ? 'meta_tag' : name;
}

export function isChallengeMethod(value: string | null | undefined): value is ChallengeMethod {
  return (CHALLENGE_METHODS as readonly string[]).includes(value ?? '');
}

const TIERS: Readonly<Record<Method, TrustTier>> = {
  dns_txt: 'dns_txt',
  plugin: 'plugin_signed',
  well_known_file: 'well_known',
  meta_tag: 'meta_tag',
  manual: 'manual',
};

/** The trust tier a method gives (docs/contract.md#verification): the method drives the tier. */
export function tierOf(method: string | null): TrustTier | null {
  return method !== null && method in TIERS ? TIERS[method as Method] : null;
}

/** The text every proof carries: `nodectl-verify=<token>`. */
export function proofText(token: string): string {
  return `nodectl-verify=${token}`;
}
