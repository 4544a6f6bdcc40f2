/**
 * Words the website pages show, as pure functions (test/console/website-text.test.ts): what a
 * verification state means, what to fix after a failed check, where each proof goes.
 */
import type { ChallengeMethod, Instructions, VerificationState } from './website-api.js';

export const STATE_LABELS: Record<VerificationState, string> = {
  verified: 'Verified',
  pending: 'Not verified yet',
  grace: 'Verified (re-check due)',
  failed: 'Verification failed',
  revoked: 'Verification revoked',
};

export const METHOD_LABELS: Record<ChallengeMethod, string> = {
  dns_txt: 'DNS TXT record',
  meta_tag: 'Meta tag on the home page',
  well_known_file: 'File under /.well-known/',
  plugin: 'Signed heartbeat of a connector (plugin)',
};

/** The typed confirmation names the domain: the API ignores case and surrounding spaces too. */
export function confirmsDomain(typed: string, domain: string): boolean {
  return typed.trim().toLowerCase() === domain.toLowerCase();
}

/** An API time as `2026-03-02 10:00 UTC` (the same on every screen, whatever the browser's zone). */
export function timeText(iso: string | null | undefined, never = 'never'): string {
  if (!iso) return never;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** One thing to copy: what it is, and the exact text. */
export interface ProofField {
  label: string;
  value: string;
}

/** The exact values of a challenge's instructions, in the order a person places them. */
export function proofFields(instructions: Instructions): ProofField[] {
  if ('type' in instructions)
    return [
      { label: 'Record type', value: instructions.type },
      { label: 'Name', value: instructions.name },
      { label: 'Value', value: instructions.value },
    ];
  if ('tag' in instructions)
    return [
      { label: 'Page', value: instructions.url },
      { label: 'Meta tag', value: instructions.tag },
    ];
  if ('content' in instructions)
    return [
      { label: 'File address', value: instructions.url },
      { label: 'File content', value: instructions.content },
    ];
  return [
    { label: 'Heartbeat field', value: instructions.heartbeatField },
    { label: 'Value', value: instructions.value },
  ];
}

/** Where the proof goes, in a sentence. */
export function proofWhere(instructions: Instructions): string {
  if ('type' in instructions)
    return `Add a ${instructions.type} record at your DNS provider with this name and value (some providers want the name without the domain at its end).`;
  if ('tag' in instructions) return `Put this tag in the <head> of ${instructions.url} (${instructions.where}).`;
  if ('content' in instructions)
    return `Serve a plain text file (${instructions.contentType}) at this address holding this line.`;
  return `A connector of this website sends this value in the body of a signed heartbeat (${instructions.where}).`;
}

/**
 * What to fix after a failed check, read from the API's reason (the checks word it:
 * src/control/verification/checks). Unknown wording gets the general advice.
 */
export function failureAdvice(method: string | null, reason: string): string {
  const text = reason.toLowerCase();
  const named = /^(dns_txt|meta_tag|well_known_file|plugin)\b/.exec(text)?.[1];
  const by = method ?? named ?? '';
  const later = 'The daemon also re-checks by itself every hour, so it verifies once the proof is there.';
  if (by === 'dns_txt') {
    if (/nxdomain|no record of this type|no txt record/.test(text))
      return `The TXT record is not there yet. Add it exactly as shown; DNS changes can take minutes to an hour to appear, then check again. ${later}`;
    if (/timed out|servfail|refused|failed \(/.test(text))
      return `The DNS server did not answer properly. Check your DNS provider, then check again. ${later}`;
    return `TXT records were found, but none holds the value shown. Copy the value exactly (no quotes, no spaces), wait for DNS to update, then check again. ${later}`;
  }
  if (by === 'plugin')
    return 'No active connector of this website has sent the value in a signed heartbeat since the challenge. Make the connector send it, then check again.';
  const status = /http (\d{3})/.exec(text)?.[1];
  if (status && !status.startsWith('2'))
    return `The web server answered HTTP ${status} instead of the page or file. Make the address shown public, then check again.`;
  if (!status && /get /.test(text))
    return 'The daemon could not read your website at that address (the reason is above). Make sure the domain resolves to a public server that answers over HTTPS, then check again.';
  if (by === 'meta_tag')
    return 'The home page was read, but the tag was not in it. Put the tag inside <head> exactly as shown, then check again.';
  if (by === 'well_known_file')
    return 'The file was read, but it does not hold the line shown. Put the line in the file exactly as shown, then check again.';
  return `Place the proof exactly as shown, then check again. ${later}`;
}

/** The shell line that uses a new connector's token with `nodectl push` (docs/ingest.md, README). */
export function pushCommand(token: string, websiteId: string, domain: string, origin: string): string {
  return `NODECTL_CONNECTOR_TOKEN='${token}' nodectl push ./content --url ${origin} --website ${websiteId} --domain ${domain}`;
}
