import { fetchProof, describeFetch, matchesToken } from './http-proof.js';
import type { MethodCheck } from './types.js';

export const WELL_KNOWN_PATH = '/.well-known/nodectl-verify.txt';

/** well_known_file: `<origin>/.well-known/nodectl-verify.txt` holds the token on a line of its own. */
export const checkWellKnownFile: MethodCheck = async (subject, { probes }) => {
  const url = `${probes.originOf(subject.domain)}${WELL_KNOWN_PATH}`;
  const fetched = await fetchProof(probes, url);
  if ('failure' in fetched) return { method: 'well_known_file', passed: false, evidence: fetched.failure };
  const text = fetched.response.body.toString('utf8');
  const passed = text.split(/\r?\n/).some((line) => matchesToken(line, subject.token));
  return {
    method: 'well_known_file',
    passed,
    evidence: `${describeFetch(fetched.response)}; file starts ${JSON.stringify(text.slice(0, 200))}`,
  };
};
