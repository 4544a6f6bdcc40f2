import type { DomainVerification } from '../domain-store.js';
import type { CheckContext, CheckOutcome, MethodCheck } from './types.js';

/**
 * How recent a plugin's signed heartbeat with the token must be for a check to pass. A plugin
 * sends heartbeats every few minutes, so two days without one means it is gone (or no longer
 * sends the token); the daily re-check then starts the grace window.
 */
export const PLUGIN_PROOF_MAX_AGE_MS = 2 * 24 * 60 * 60 * 1000;

/**
 * plugin (tier plugin_signed): a signed heartbeat of one of the website's active connectors
 * carried the token (POST /v1/ingest/heartbeat, `verification_token`), after the challenge was
 * issued and within PLUGIN_PROOF_MAX_AGE_MS. The heartbeat's HMAC signature covers the body, so
 * the token was signed with the connector's key.
 */
export function readPluginProof(
  subject: DomainVerification,
  { controlDb, now }: Pick<CheckContext, 'controlDb' | 'now'>,
): CheckOutcome {
  const at = subject.pluginProofAt;
  const connectorId = subject.pluginConnectorId;
  if (at === null || connectorId === null)
    return { method: 'plugin', passed: false, evidence: 'no signed heartbeat has carried the token yet' };
  const when = new Date(at).toISOString();
  const connector = controlDb.prepare('SELECT status, website_id FROM connectors WHERE id = ?').get(connectorId) as
    { status: string; website_id: string } | undefined;
  if (!connector || connector.website_id !== subject.websiteId || connector.status !== 'active') {
    return {
      method: 'plugin',
      passed: false,
      evidence: `the heartbeat of ${when} came from connector ${connectorId}, which is no longer active on this website`,
    };
  }
  if (subject.challengedAt !== null && at < subject.challengedAt)
    return {
      method: 'plugin',
      passed: false,
      evidence: `the last heartbeat with the token (${when}, connector ${connectorId}) is older than the challenge`,
    };
  if (now - at > PLUGIN_PROOF_MAX_AGE_MS)
    return {
      method: 'plugin',
      passed: false,
      evidence: `the last heartbeat with the token (${when}, connector ${connectorId}) is more than 2 days old`,
    };
  return {
    method: 'plugin',
    passed: true,
    evidence: `a heartbeat signed by connector ${connectorId} carried the token at ${when}`,
  };
}

export const checkPlugin: MethodCheck = async (subject, context) => readPluginProof(subject, context);
