import { applyStep } from './apply-step.js';
import { readPluginProof } from './checks/plugin.js';
import type { VerificationDeps } from './deps.js';
import { findDomainByToken, readDomainVerification } from './domain-store.js';

/**
 * A signed heartbeat carried `verification_token` (POST /v1/ingest/heartbeat): if it is the
 * token of one of the website's domains, the proof is kept (time and connector), and a domain
 * whose open challenge is `plugin` and which is pending or in grace is checked at once, so the
 * plugin verifies it without waiting for a check request. A token of no domain is ignored: the
 * heartbeat still succeeds. Returns whether the token was one of the website's.
 */
export function acceptPluginProof(
  deps: VerificationDeps,
  input: { websiteId: string; connectorId: string; token: string },
): boolean {
  const db = deps.controlDb;
  const now = deps.now();
  const subject = findDomainByToken(db, input.websiteId, input.token);
  if (!subject) return false;
  db.prepare(
    'UPDATE domain_verifications SET plugin_proof_at = ?, plugin_connector_id = ? WHERE website_id = ? AND domain = ?',
  ).run(now, input.connectorId, input.websiteId, subject.domain);
  if (subject.challengeMethod !== 'plugin' || (subject.state !== 'pending' && subject.state !== 'grace')) return true;
  const proven = readDomainVerification(db, input.websiteId, subject.domain)!;
  const outcome = readPluginProof(proven, { controlDb: db, now });
  if (!outcome.passed) return true;
  const applied = applyStep(
    db,
    input.websiteId,
    subject.domain,
    {
      event: 'plugin_heartbeat',
      machine: { kind: 'check', passed: true, method: 'plugin', tried: ['plugin'] },
      method: 'plugin',
      result: 'passed',
      actor: `connector:${input.connectorId}`,
      evidence: outcome.evidence,
      patch: { lastCheckedAt: now },
    },
    now,
  );
  if (applied?.changed && !applied.after.isAlias) deps.onTrustChanged?.(input.websiteId);
  return true;
}
