import { Parser } from 'htmlparser2';
import { fetchProof, describeFetch, matchesToken } from './http-proof.js';
import type { MethodCheck } from './types.js';

/** The content of every `<meta name="nodectl-verify" content="...">` of a page, in order. */
export function readVerifyMetaTags(html: string): string[] {
  const found: string[] = [];
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (name === 'meta' && attributes.name?.trim().toLowerCase() === 'nodectl-verify')
          found.push(attributes.content ?? '');
      },
    },
    { decodeEntities: true, lowerCaseAttributeNames: true },
  );
  parser.end(html);
  return found;
}

/** meta_tag (alias html_meta): `<meta name="nodectl-verify" content="<token>">` on the domain's home page. */
export const checkMetaTag: MethodCheck = async (subject, { probes }) => {
  const url = `${probes.originOf(subject.domain)}/`;
  const fetched = await fetchProof(probes, url);
  if ('failure' in fetched) return { method: 'meta_tag', passed: false, evidence: fetched.failure };
  const tags = readVerifyMetaTags(fetched.response.body.toString('utf8'));
  const passed = tags.some((content) => matchesToken(content, subject.token));
  const read =
    tags.length === 0
      ? 'no nodectl-verify meta tag'
      : tags.map((c) => `<meta name="nodectl-verify" content=${JSON.stringify(c)}>`).join(' ');
  return { method: 'meta_tag', passed, evidence: `${describeFetch(fetched.response)}; ${read}` };
};
