import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackHttp, type LoopbackHttp } from '../../platform/net/loopback-servers.js';
import { startHarness, type Harness } from '../websites/harness.js';

/**
 * Each verification method verified and failed for real, through the routes: TXT records from a
 * DNS server on loopback (dns2), meta tags and well-known files from an HTTP server on loopback
 * reached by the guarded fetcher (the names resolve through the same DNS server; private
 * addresses are allowed, as on a self-hosted network).
 */

/** Pages by host name, then by path. */
const pages = new Map<string, Map<string, { status?: number; body: string; location?: string }>>();
let web: LoopbackHttp;
let h: Harness;
let owner: { id: string; token: string };
let org: string;

beforeAll(async () => {
  web = await startLoopbackHttp((req, res) => {
    const page = pages.get((req.headers.host ?? '').replace(/:\d+$/, ''))?.get(req.url ?? '/');
    if (!page) return void res.writeHead(404).end('not found');
    res
      .writeHead(page.status ?? 200, page.location ? { location: page.location } : { 'content-type': 'text/html' })
      .end(page.body);
  });
  h = await startHarness({ verificationBaseUrl: `http://{domain}:${web.port}` });
  owner = h.user('owner');
  org = h.organization(owner, 'business');
}, 60_000);
afterAll(async () => {
  await h?.close();
  await web?.close();
});

/** A website whose domain resolves to the loopback HTTP server, with a challenge of `method`. */
async function challenged(domain: string, method: string) {
  h.dns.set(domain, { A: ['127.0.0.1'] });
  const site = await h.website(org, owner.token, domain);
  const res = await h.call('POST', `/v1/websites/${site.id}/verification/challenge`, owner.token, { method });
  expect(res.status, res.body).toBe(201);
  return { id: site.id, token: res.json.data.challenge.token as string, challenge: res.json.data.challenge };
}

const check = (id: string, body?: unknown) =>
  h.call('POST', `/v1/websites/${id}/verification/check`, owner.token, body);

describe('dns_txt', () => {
  it('verifies with the TXT record at _nodectl-verify.<domain> (tier dns_txt, trust 1.0); the instructions name it', async () => {
    const site = await challenged('dns-ok.example.com', 'dns_txt');
    expect(site.challenge.instructions).toEqual({
      type: 'TXT',
      name: '_nodectl-verify.dns-ok.example.com',
      value: `nodectl-verify=${site.token}`,
    });
    // DNS splits long TXT values into strings of at most 255 bytes: they are joined.
    h.dns.set('_nodectl-verify.dns-ok.example.com', { TXT: [['v=spf1 -all'], ['nodectl-verify=', site.token]] });
    const res = await check(site.id);
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({
      state: 'verified',
      method: 'dns_txt',
      trustTier: 'dns_txt',
      trustScore: 1,
      check: { method: 'dns_txt', passed: true },
    });
    expect(res.json.data.check.evidence).toContain(`"nodectl-verify=${site.token}"`);
  });

  it.each([
    ['NXDOMAIN', 'NXDOMAIN' as const, 'NXDOMAIN'],
    ['SERVFAIL', 'SERVFAIL' as const, 'SERVFAIL'],
    ['a DNS server that never answers', 'SILENT' as const, 'timed out'],
    ['another token', { TXT: [['nodectl-verify=not-the-token']] }, 'not-the-token'],
  ])('fails on %s, saying so in the evidence; the challenge stays pending', async (_what, answer, said) => {
    const domain = `dns-${Math.random().toString(36).slice(2, 8)}.example.com`;
    const site = await challenged(domain, 'dns_txt');
    h.dns.set(`_nodectl-verify.${domain}`, answer);
    const res = await check(site.id);
    expect(res.json.data).toMatchObject({
      state: 'pending',
      failureCount: 1,
      trustTier: 'unverified',
      trustScore: 0,
      check: { passed: false },
    });
    expect(res.json.data.check.evidence).toContain(said);
  });
});

describe('meta_tag (alias html_meta)', () => {
  it('verifies with <meta name="nodectl-verify" content="<token>"> on the home page (tier meta_tag, 0.7), through a redirect', async () => {
    const site = await challenged('meta-ok.example.com', 'html_meta');
    expect(site.challenge).toMatchObject({
      method: 'meta_tag',
      instructions: {
        url: `http://meta-ok.example.com:${web.port}/`,
        tag: `<meta name="nodectl-verify" content="${site.token}">`,
      },
    });
    pages.set(
      'meta-ok.example.com',
      new Map([
        ['/', { status: 301, body: '', location: '/home' }],
        [
          '/home',
          {
            body: `<!doctype html><html><head><title>x</title><META NAME="nodectl-verify" CONTENT="${site.token}"></head><body>hi</body></html>`,
          },
        ],
      ]),
    );
    const res = await check(site.id);
    expect(res.json.data).toMatchObject({
      state: 'verified',
      method: 'meta_tag',
      trustTier: 'meta_tag',
      trustScore: 0.7,
    });
    expect(res.json.data.check.evidence).toMatch(
      /GET http:\/\/meta-ok\.example\.com:\d+\/home via http:\/\/meta-ok\.example\.com:\d+\/ \(127\.0\.0\.1\): HTTP 200/,
    );
  });

  it('fails on a page without the tag, and on a 404', async () => {
    const site = await challenged('meta-none.example.com', 'meta_tag');
    pages.set(
      'meta-none.example.com',
      new Map([['/', { body: '<html><head><meta name="description" content="x"></head></html>' }]]),
    );
    expect((await check(site.id)).json.data.check).toMatchObject({
      passed: false,
      evidence: expect.stringContaining('no nodectl-verify meta tag'),
    });
    const missing = await challenged('meta-404.example.com', 'meta_tag');
    expect((await check(missing.id)).json.data.check).toMatchObject({
      passed: false,
      evidence: expect.stringContaining('HTTP 404'),
    });
  });
});

describe('well_known_file', () => {
  it('verifies with the token in /.well-known/nodectl-verify.txt (tier well_known, 0.8)', async () => {
    const site = await challenged('file-ok.example.com', 'well_known_file');
    expect(site.challenge.instructions).toMatchObject({
      url: `http://file-ok.example.com:${web.port}/.well-known/nodectl-verify.txt`,
      content: `nodectl-verify=${site.token}`,
    });
    pages.set(
      'file-ok.example.com',
      new Map([['/.well-known/nodectl-verify.txt', { body: `# ours\nnodectl-verify=${site.token}\n` }]]),
    );
    expect((await check(site.id)).json.data).toMatchObject({
      state: 'verified',
      method: 'well_known_file',
      trustTier: 'well_known',
      trustScore: 0.8,
    });
  });

  it('fails on a file holding another token', async () => {
    const site = await challenged('file-bad.example.com', 'well_known_file');
    pages.set(
      'file-bad.example.com',
      new Map([['/.well-known/nodectl-verify.txt', { body: 'nodectl-verify=someone-else' }]]),
    );
    expect((await check(site.id)).json.data).toMatchObject({
      state: 'pending',
      check: { passed: false, evidence: expect.stringContaining('someone-else') },
    });
  });
});

describe('the guarded fetcher stands between a check and the network', () => {
  it('with private addresses not allowed, a domain resolving to loopback fails the check without a request', async () => {
    const strict = await startHarness({
      verificationBaseUrl: `http://{domain}:${web.port}`,
      fetchAllowPrivateAddresses: false,
    });
    try {
      const user = strict.user('strict');
      const orgId = strict.organization(user, 'pro');
      strict.dns.set('inside.example.com', { A: ['127.0.0.1'] });
      const site = await strict.website(orgId, user.token, 'inside.example.com');
      await strict.call('POST', `/v1/websites/${site.id}/verification/challenge`, user.token, { method: 'meta_tag' });
      const before = web.requests.length;
      const res = await strict.call('POST', `/v1/websites/${site.id}/verification/check`, user.token);
      expect(res.json.data.check).toMatchObject({
        passed: false,
        evidence: expect.stringMatching(/address: .*127\.0\.0\.1.*loopback/),
      });
      expect(web.requests.length).toBe(before);
    } finally {
      await strict.close();
    }
  });
});
