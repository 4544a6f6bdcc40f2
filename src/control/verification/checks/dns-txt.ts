import { describeDnsError } from '../../../platform/net/index.js';
import { proofText } from '../methods.js';
import type { MethodCheck } from './types.js';

/** The name that holds the TXT record of `domain`. */
export function dnsRecordName(domain: string): string {
  return `_nodectl-verify.${domain}`;
}

/**
 * dns_txt: a TXT record `nodectl-verify=<token>` at `_nodectl-verify.<domain>` (the record's
 * character strings joined, as DNS splits long values). NXDOMAIN, no record, SERVFAIL and a
 * timeout all fail the check, each said in the evidence.
 */
export const checkDnsTxt: MethodCheck = async (subject, { probes }) => {
  const name = dnsRecordName(subject.domain);
  let records: string[];
  try {
    records = (await probes.resolver.resolveTxt(name)).map((chunks) => chunks.join(''));
  } catch (error) {
    return { method: 'dns_txt', passed: false, evidence: `TXT ${name}: ${describeDnsError(error)}` };
  }
  const passed = records.some((record) => record.trim() === proofText(subject.token));
  const listed = records.length === 0 ? 'no TXT record' : records.map((r) => JSON.stringify(r)).join(', ');
  return { method: 'dns_txt', passed, evidence: `TXT ${name}: ${listed}` };
};
