import type { Db } from '../../platform/storage/index.js';
import { countsAsVerified, trustScore } from '../records/index.js';
import { dnsRecordName } from './checks/dns-txt.js';
import { WELL_KNOWN_PATH } from './checks/well-known-file.js';
import { listDomainVerifications, listVerificationEvents, type DomainVerification } from './domain-store.js';
import { proofText, tierOf, type ChallengeMethod } from './methods.js';
import { challengeExpiresAt } from './state-machine.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** Where to put the proof of one method, exactly (docs/verification.md "What to put where"). */
export function instructionsFor(
  method: ChallengeMethod,
  domain: string,
  token: string,
  origin: string,
): Record<string, string> {
  switch (method) {
    case 'dns_txt':
      return { type: 'TXT', name: dnsRecordName(domain), value: proofText(token) };
    case 'meta_tag':
      return {
        url: `${origin}/`,
        tag: `<meta name="nodectl-verify" content="${token}">`,
        where: 'inside <head> of the home page',
      };
    case 'well_known_file':
      return { url: `${origin}${WELL_KNOWN_PATH}`, content: proofText(token), contentType: 'text/plain' };
    case 'plugin':
      return {
        heartbeatField: 'verification_token',
        value: token,
        where: "the body of a signed POST /v1/ingest/heartbeat from one of the website's connectors",
      };
  }
}

/** One domain's verification as the API answers it. */
export function presentDomainVerification(record: DomainVerification, originOf: (domain: string) => string) {
  const tier = tierOf(record.method);
  return {
    domain: record.domain,
    alias: record.isAlias,
    state: record.state,
    method: record.method,
    trustTier: tier !== null && countsAsVerified(record.state) ? tier : 'unverified',
    trustScore: trustScore(tier, record.state),
    challenge:
      record.challengeMethod !== null && record.token !== null
        ? {
            method: record.challengeMethod,
            token: record.token,
            proof: proofText(record.token),
            instructions: instructionsFor(record.challengeMethod, record.domain, record.token, originOf(record.domain)),
          }
        : null,
    challengedAt: iso(record.challengedAt),
    lastCheckedAt: iso(record.lastCheckedAt),
    verifiedAt: iso(record.verifiedAt),
    graceUntil: iso(record.graceUntil),
    failureCount: record.failureCount,
    lastFailureReason: record.lastFailure,
    challengeExpiresAt: iso(challengeExpiresAt(record)),
  };
}

export type DomainVerificationView = ReturnType<typeof presentDomainVerification>;

/** How many of the latest transitions GET .../verification lists. */
export const HISTORY_SHOWN = 20;

/** GET /v1/websites/:id/verification: the website's own domain, its aliases, and the latest transitions. */
export function presentWebsiteVerification(db: Db, websiteId: string, originOf: (domain: string) => string) {
  const [own, ...aliases] = listDomainVerifications(db, websiteId);
  return {
    websiteId,
    ...presentDomainVerification(own!, originOf),
    aliases: aliases.map((a) => presentDomainVerification(a, originOf)),
    history: listVerificationEvents(db, websiteId, HISTORY_SHOWN).map((e) => ({
      at: iso(e.at),
      domain: e.domain,
      event: e.event,
      method: e.method,
      result: e.result,
      fromState: e.fromState,
      toState: e.toState,
      evidence: e.evidence,
      actor: e.actor,
    })),
  };
}
