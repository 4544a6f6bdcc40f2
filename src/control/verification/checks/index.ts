import type { ChallengeMethod } from '../methods.js';
import { checkDnsTxt } from './dns-txt.js';
import { checkMetaTag } from './meta-tag.js';
import { checkPlugin } from './plugin.js';
import type { MethodCheck } from './types.js';
import { checkWellKnownFile } from './well-known-file.js';

/** The check of each method (docs/contract.md#verification). */
export const METHOD_CHECKS: Readonly<Record<ChallengeMethod, MethodCheck>> = {
  dns_txt: checkDnsTxt,
  meta_tag: checkMetaTag,
  well_known_file: checkWellKnownFile,
  plugin: checkPlugin,
};

export type { CheckContext, CheckOutcome, MethodCheck } from './types.js';
