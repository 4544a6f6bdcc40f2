import {
  VERIFICATION_METHOD_ALIASES,
  canonicalMethodName,
  tierOfMethod,
  type VerificationMethod as TrustTier,
} from '../records/index.js';

/**
 * The ownership proofs a website owner can place (docs/contract.md#verification); `manual` is granted, never checked.
 */
export const CHALLENGE_METHODS = ['dns_txt', 'meta_tag', 'well_known_file', 'plugin'] as const;
export type ChallengeMethod = (typeof CHALLENGE_METHODS)[number];
export type Method = ChallengeMethod | 'manual';

/**
 * Names a request may use for a challenge method: the contract's, plus the aliases html_meta
 * (meta_tag), plugin_signed (plugin) and well_known (well_known_file). Answers use the contract's.
 */
export const METHOD_NAMES = [
  ...CHALLENGE_METHODS,
  ...(Object.keys(VERIFICATION_METHOD_ALIASES) as Array<keyof typeof VERIFICATION_METHOD_ALIASES>),
] as const;

export function toChallengeMethod(name: (typeof METHOD_NAMES)[number]): ChallengeMethod {
  return canonicalMethodName(name) as ChallengeMethod;
}

export function isChallengeMethod(value: string | null | undefined): value is ChallengeMethod {
  return (CHALLENGE_METHODS as readonly string[]).includes(value ?? '');
}

/** The trust tier a method gives (docs/contract.md#verification): the method drives the tier. */
export function tierOf(method: string | null): TrustTier | null {
  return tierOfMethod(method);
}

/** The text every proof carries: `nodectl-verify=<token>`. */
export function proofText(token: string): string {
  return `nodectl-verify=${token}`;
}
