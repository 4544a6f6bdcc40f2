import { lookup as systemLookup } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, request } from 'undici';
import { checkAddress, isAddressOrRange } from '../../../src/platform/net/address-policy.js';
import {
  guardedFetch,
  GuardedFetchError,
  type FetchFailure,
  type GuardedFetchOptions,
} from '../../../src/platform/net/guarded-fetch.js';
import { createHostResolver, type HostResolver } from '../../../src/platform/net/host-resolver.js';
import {
  startLoopbackDns,
  startLoopbackHttp,
  startServerPair,
  type LoopbackDns,
  type LoopbackHttp,
} from './loopback-servers.js';

/**
 * The guarded fetcher against real servers on loopback: a DNS server (dns2) that a test points
 * names at, and HTTP servers. 127.0.0.2 stands for "the public internet": the tests allow exactly
 * that address (fetchAllowedAddresses), so everything else on loopback is the private network
 * an attacker wants to reach.
 */

let dns: LoopbackDns;
let resolver: HostResolver;
/** The "public" server on 127.0.0.2 and the "internal" one on 127.0.0.1, on one port. */
let pair: Awaited<ReturnType<typeof startServerPair>>;
let port: number;
const OUTSIDE: GuardedFetchOptions = { allowedRanges: ['127.0.0.2'] };

beforeAll(async () => {
  dns = await startLoopbackDns();
  resolver = createHostResolver({ servers: [dns.server], timeoutMs: 300, tries: 1 });
  pair = await startServerPair(
    (req, res) => {
      const target = new URL(req.url ?? '/', 'http://x').searchParams.get('to');
      if (target) {
        res.writeHead(302, { location: target }).end();
        return;
      }
      res.end(`outside ${req.url}`);
    },
    (req, res) => res.end(`INTERNAL SECRET ${req.url}`),
  );
  port = pair.outside.port;
  dns.set('outside.test', { A: ['127.0.0.2'] });
  dns.set('loopback.test', { A: ['127.0.0.1'] });
  dns.set('mixed.test', { A: ['127.0.0.2', '127.0.0.1'] });
  dns.set('metadata.test', { A: ['169.254.169.254'] });
  dns.set('private.test', { A: ['10.1.2.3'] });
  dns.set('cgnat.test', { A: ['100.64.0.9'] });
  dns.set('zero.test', { A: ['0.0.0.0'] });
  dns.set('v6-loopback.test', { AAAA: ['::1'] });
  dns.set('v6-mapped.test', { AAAA: ['::ffff:127.0.0.1'] });
  dns.set('v6-ula.test', { AAAA: ['fd12:3456::1'] });
  dns.set('v6-nat64.test', { AAAA: ['64:ff9b::a9fe:a9fe'] });
  dns.set('missing.test', 'NXDOMAIN');
  dns.set('localhost', { A: ['127.0.0.1'], AAAA: ['::1'] });
});

afterAll(async () => {
  await pair?.close();
  await dns?.close();
});

/** The failure a fetch ends with, or 'fetched' when it answered. */
async function outcome(url: string, options: GuardedFetchOptions = OUTSIDE): Promise<FetchFailure | 'fetched'> {
  try {
    await guardedFetch(url, { resolver, timeoutMs: 2000, ...options });
    return 'fetched';
  } catch (error) {
    if (error instanceof GuardedFetchError) return error.failure;
    throw error;
  }
}

const redirectTo = (target: string) => `http://outside.test:${'PORT'}/?to=${encodeURIComponent(target)}`;

/** [what, url, the refusal]; PORT is the servers' port. At least 30 (issue 14). */
const HOSTILE: ReadonlyArray<readonly [string, string, FetchFailure]> = [
  ['loopback literal', 'http://127.0.0.1:PORT/', 'address'],
  ['loopback elsewhere in 127/8', 'http://127.0.0.53:PORT/', 'address'],
  ['decimal IPv4', 'http://2130706433:PORT/', 'address'],
  ['octal IPv4', 'http://0177.0.0.1:PORT/', 'address'],
  ['hex IPv4', 'http://0x7f000001:PORT/', 'address'],
  ['short IPv4', 'http://127.1:PORT/', 'address'],
  ['0.0.0.0', 'http://0.0.0.0:PORT/', 'address'],
  ['bare 0', 'http://0:PORT/', 'address'],
  ['IPv6 loopback', 'http://[::1]:PORT/', 'address'],
  ['IPv6 unspecified', 'http://[::]:PORT/', 'address'],
  ['IPv4-mapped loopback', 'http://[::ffff:127.0.0.1]:PORT/', 'address'],
  ['IPv4-compatible loopback', 'http://[::7f00:1]:PORT/', 'address'],
  ['IPv4-compatible metadata', 'http://[::a9fe:a9fe]/', 'address'],
  ['cloud metadata', 'http://169.254.169.254/latest/meta-data/', 'address'],
  ['AWS IPv6 metadata', 'http://[fd00:ec2::254]/latest/meta-data/', 'address'],
  ['link-local', 'http://169.254.1.1:PORT/', 'address'],
  ['RFC 1918 10/8', 'http://10.0.0.1:PORT/', 'address'],
  ['RFC 1918 172.16/12', 'http://172.16.5.4:PORT/', 'address'],
  ['RFC 1918 192.168/16', 'http://192.168.1.1:PORT/', 'address'],
  ['carrier-grade NAT', 'http://100.64.0.1:PORT/', 'address'],
  ['multicast', 'http://224.0.0.1:PORT/', 'address'],
  ['broadcast', 'http://255.255.255.255:PORT/', 'address'],
  ['IPv6 unique-local', 'http://[fc00::1]:PORT/', 'address'],
  ['IPv6 link-local', 'http://[fe80::1]:PORT/', 'address'],
  ['NAT64 to metadata', 'http://[64:ff9b::a9fe:a9fe]/', 'address'],
  ['6to4 of loopback', 'http://[2002:7f00:1::]:PORT/', 'address'],
  ['documentation range', 'http://192.0.2.10:PORT/', 'address'],
  ['file scheme', 'file:///etc/passwd', 'scheme'],
  ['ftp scheme', 'ftp://outside.test/', 'scheme'],
  ['gopher scheme', 'gopher://outside.test:70/', 'scheme'],
  ['data URL', 'data:text/plain,hello', 'scheme'],
  ['credentials in the URL', 'http://user:pass@outside.test:PORT/', 'credentials'],
  ['a name resolving to loopback', 'http://loopback.test:PORT/', 'address'],
  ['localhost', 'http://localhost:PORT/', 'address'],
  ['a name resolving to a public and a private address', 'http://mixed.test:PORT/', 'address'],
  ['a name resolving to the metadata address', 'http://metadata.test/', 'address'],
  ['a name resolving to 10/8', 'http://private.test:PORT/', 'address'],
  ['a name resolving to CGNAT', 'http://cgnat.test:PORT/', 'address'],
  ['a name resolving to 0.0.0.0', 'http://zero.test:PORT/', 'address'],
  ['a name resolving to ::1', 'http://v6-loopback.test:PORT/', 'address'],
  ['a name resolving to ::ffff:127.0.0.1', 'http://v6-mapped.test:PORT/', 'address'],
  ['a name resolving to IPv6 unique-local', 'http://v6-ula.test:PORT/', 'address'],
  ['a name resolving to NAT64 metadata', 'http://v6-nat64.test:PORT/', 'address'],
  ['redirect to the metadata address', redirectTo('http://169.254.169.254/latest/meta-data/'), 'address'],
  ['redirect to loopback', redirectTo('http://127.0.0.1:PORT/'), 'address'],
  ['redirect to IPv4-mapped loopback', redirectTo('http://[::ffff:127.0.0.1]:PORT/'), 'address'],
  ['redirect to a name resolving to loopback', redirectTo('http://loopback.test:PORT/'), 'address'],
  ['redirect to a file URL', redirectTo('file:///etc/passwd'), 'scheme'],
  ['a name that does not exist', 'http://missing.test:PORT/', 'dns'],
];

describe('the guarded fetcher refuses hostile targets (SSRF)', () => {
  it(`refuses every one of ${HOSTILE.length} hostile targets, and the internal server sees no request`, async () => {
    expect(HOSTILE.length).toBeGreaterThanOrEqual(30);
    const got: string[] = [];
    for (const [what, url, failure] of HOSTILE)
      got.push(`${what}: ${await outcome(url.replaceAll('PORT', String(port)))} (want ${failure})`);
    expect(got).toEqual(HOSTILE.map(([what, , failure]) => `${what}: ${failure} (want ${failure})`));
    expect(pair.inside.requests).toEqual([]);
  });

  it('fetches the allowed outside server, by name and through a redirect that stays outside', async () => {
    const direct = await guardedFetch(`http://outside.test:${port}/page`, { resolver, ...OUTSIDE });
    expect({ status: direct.status, body: direct.body.toString(), remoteAddress: direct.remoteAddress }).toEqual({
      status: 200,
      body: 'outside /page',
      remoteAddress: '127.0.0.2',
    });
    const redirected = await guardedFetch(
      redirectTo(`http://outside.test:${port}/landed`).replace('PORT', String(port)),
      { resolver, ...OUTSIDE },
    );
    expect({ url: redirected.url, body: redirected.body.toString(), redirects: redirected.redirects.length }).toEqual({
      url: `http://outside.test:${port}/landed`,
      body: 'outside /landed',
      redirects: 1,
    });
  });

  it('follows at most 3 redirects: a fourth is refused', async () => {
    let hop = (url: string) => url;
    for (let i = 0; i < 3; i++) {
      const inner = hop;
      hop = (url) => redirectTo(inner(url)).replace('PORT', String(port));
    }
    expect(await outcome(hop(`http://outside.test:${port}/end`))).toBe('fetched');
    expect(await outcome(redirectTo(hop(`http://outside.test:${port}/end`)).replace('PORT', String(port)))).toBe(
      'redirect',
    );
  });

  it('DNS rebinding: a name answering an allowed address, then loopback, is connected to the address that was checked', async () => {
    dns.set('rebind.test', [{ A: ['127.0.0.2'] }, { A: ['127.0.0.1'] }]);
    const before = pair.inside.requests.length;
    const answer = await guardedFetch(`http://rebind.test:${port}/who`, { resolver, ...OUTSIDE });
    expect({ body: answer.body.toString(), remoteAddress: answer.remoteAddress }).toEqual({
      body: 'outside /who',
      remoteAddress: '127.0.0.2',
    });
    expect(dns.queries('rebind.test', 'A')).toBe(1);
    // The name does rebind: a fetcher that checked one lookup and let the connection make another
    // would have reached the internal server with the second answer.
    const naive = new Agent({
      connect: {
        lookup: (host, o, cb) =>
          void resolver.resolveAddresses(host).then(
            (all) =>
              o.all ? (cb as (e: null, a: unknown) => void)(null, all) : cb(null, all[0]!.address, all[0]!.family),
            (e) => cb(e, '', 0),
          ),
      },
    });
    const leaked = await request(`http://rebind.test:${port}/who`, { dispatcher: naive });
    expect(await leaked.body.text()).toBe('INTERNAL SECRET /who');
    await naive.close();
    expect(pair.inside.requests.slice(before)).toEqual(['GET /who']);
  });

  it('a name resolving to loopback only on the first lookup is refused before any connection', async () => {
    dns.set('rebind-first.test', [{ A: ['127.0.0.1'] }, { A: ['127.0.0.2'] }]);
    const before = pair.inside.requests.length;
    expect(await outcome(`http://rebind-first.test:${port}/`)).toBe('address');
    expect(pair.inside.requests.length).toBe(before);
  });
});

describe('the guarded fetcher bounds what it reads and how long it waits', () => {
  let big: LoopbackHttp;
  let silent: LoopbackHttp;
  let trickle: LoopbackHttp;
  let sent = 0;
  beforeAll(async () => {
    big = await startLoopbackHttp((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      const chunk = Buffer.alloc(16 * 1024, 'a');
      let left = 64; // 1 MiB in all
      const write = () => {
        while (left > 0) {
          left--;
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', write);
        }
        res.end();
      };
      write();
    });
    silent = await startLoopbackHttp(() => undefined);
    trickle = await startLoopbackHttp((_req, res) => {
      res.writeHead(200);
      const timer = setInterval(() => res.write('.'), 50);
      res.on('close', () => clearInterval(timer));
    });
  });
  afterAll(async () => Promise.all([big?.close(), silent?.close(), trickle?.close()]));

  it('reads at most 64 KiB of a 1 MiB body and says it was cut', async () => {
    const answer = await guardedFetch(`${big.origin}/`, { allowPrivateAddresses: true });
    expect({ bytes: answer.body.length, truncated: answer.truncated }).toEqual({ bytes: 64 * 1024, truncated: true });
    expect(sent).toBeLessThan(1024 * 1024 + 1);
  });

  /** The error a fetch gave up with. */
  const failureOf = (url: string, options: GuardedFetchOptions) =>
    guardedFetch(url, { resolver, ...options }).then(
      () => undefined,
      (error: unknown) => error as GuardedFetchError,
    );

  it('gives up on a server that never answers after the timeout', async () => {
    const failure = await failureOf(`${silent.origin}/`, { allowPrivateAddresses: true, timeoutMs: 300 });
    expect(failure?.failure).toBe('timeout');
    // The deadline it gave up at is the one asked for, not the 5 s default.
    expect(failure?.message).toBe('no complete answer within 300 ms');
  });

  it('gives up on a body that never ends after the timeout (one deadline for the whole fetch)', async () => {
    // The server sends a byte every 50 ms: a deadline reset by each chunk would never come.
    const failure = await failureOf(`${trickle.origin}/`, { allowPrivateAddresses: true, timeoutMs: 400 });
    expect(failure?.failure).toBe('timeout');
    expect(failure?.message).toBe('no complete answer within 400 ms');
  });

  it('the default timeout is 5 s and the default cap 64 KiB', async () => {
    const { GUARDED_FETCH_DEFAULTS } = await import('../../../src/platform/net/guarded-fetch.js');
    expect(GUARDED_FETCH_DEFAULTS).toEqual({ timeoutMs: 5000, maxBytes: 65536, maxRedirects: 3 });
  });

  it('a DNS server that does not answer is a dns failure, not a hang', async () => {
    dns.set('silent.test', 'SILENT');
    expect(await outcome(`http://silent.test:${port}/`)).toBe('dns');
  });
});

describe('the address policy', () => {
  it('allows public unicast, refuses special ranges, and opens private ones only with the flag (metadata never)', () => {
    const verdict = (address: string, allowPrivateAddresses = false) =>
      checkAddress(address, { allowPrivateAddresses }).allowed;
    expect(['8.8.8.8', '2606:4700::1111', '93.184.216.34'].map((a) => verdict(a))).toEqual([true, true, true]);
    expect(
      ['127.0.0.1', '10.0.0.1', '169.254.169.254', '::1', 'fd00::1', '::ffff:10.2.3.4', 'not-an-ip'].map((a) =>
        verdict(a),
      ),
    ).toEqual([false, false, false, false, false, false, false]);
    expect(
      ['127.0.0.1', '10.0.0.1', '192.168.0.4', '::1', 'fd00::1', '100.64.0.1'].map((a) => verdict(a, true)),
    ).toEqual([true, true, true, true, true, true]);
    expect(
      ['169.254.169.254', 'fd00:ec2::254', '0.0.0.0', '224.0.0.1', '::ffff:169.254.169.254'].map((a) =>
        verdict(a, true),
      ),
    ).toEqual([false, false, false, false, false]);
    expect(checkAddress('10.20.0.5', { allowPrivateAddresses: false, allowedRanges: ['10.20.0.0/16'] }).allowed).toBe(
      true,
    );
    expect(
      checkAddress('169.254.169.254', { allowPrivateAddresses: false, allowedRanges: ['169.254.0.0/16'] }).allowed,
    ).toBe(false);
    expect(['10.0.0.0/8', '::1', 'fd00::/8'].map(isAddressOrRange)).toEqual([true, true, true]);
    expect(['10.0.0.0/33', 'example.com', ''].map(isAddressOrRange)).toEqual([false, false, false]);
  });

  it('judges IPv4-mapped, IPv4-compatible and NAT64 forms as the IPv4 address they carry, by every rule (issue 36 F8)', () => {
    const verdict = (address: string, policy: { allowPrivateAddresses: boolean; allowedRanges?: string[] }) =>
      checkAddress(address, policy).allowed;
    const strict = { allowPrivateAddresses: false };
    // IPv4-compatible forms of the metadata address and of loopback are not ordinary unicast.
    expect(['::a9fe:a9fe', '::7f00:1', '::169.254.169.254', '::127.0.0.1'].map((a) => verdict(a, strict))).toEqual([
      false,
      false,
      false,
      false,
    ]);
    // However broad the allow-list, a wrapped metadata address stays refused.
    const broad = { allowPrivateAddresses: true, allowedRanges: ['::/0', '0.0.0.0/0'] };
    expect(
      [
        '::ffff:169.254.169.254',
        '::ffff:a9fe:a9fe',
        '64:ff9b::a9fe:a9fe',
        '64:ff9b::169.254.169.254',
        '::a9fe:a9fe',
      ].map((a) => verdict(a, broad)),
    ).toEqual([false, false, false, false, false]);
    expect(checkAddress('64:ff9b::a9fe:a9fe', broad)).toMatchObject({ reason: expect.stringMatching(/metadata/) });
    // The carried address decides: a private one is opened by the flag, a public one passes.
    expect(['::ffff:10.0.0.1', '64:ff9b::a00:1'].map((a) => verdict(a, strict))).toEqual([false, false]);
    expect(['::ffff:10.0.0.1', '64:ff9b::a00:1'].map((a) => verdict(a, { allowPrivateAddresses: true }))).toEqual([
      true,
      true,
    ]);
    expect(['::ffff:8.8.8.8', '64:ff9b::808:808'].map((a) => verdict(a, strict))).toEqual([true, true]);
    // An allow-list entry of IPv6 form does not open the IPv4 address a wrapped form carries.
    expect(verdict('::ffff:127.0.0.1', { allowPrivateAddresses: false, allowedRanges: ['::ffff:0:0/96'] })).toBe(false);
    expect(verdict('::ffff:10.20.0.5', { allowPrivateAddresses: false, allowedRanges: ['10.20.0.0/16'] })).toBe(true);
  });

  it('the system resolver names localhost loopback (the default resolver is refused the same way)', async () => {
    const address = await new Promise<string>((resolve, reject) =>
      systemLookup('localhost', { family: 4 }, (e, a) => (e ? reject(e) : resolve(a))),
    );
    expect(checkAddress(address, { allowPrivateAddresses: false }).allowed).toBe(false);
    await expect(guardedFetch(`http://localhost:${port}/`, { timeoutMs: 1000 })).rejects.toMatchObject({
      failure: 'address',
    });
  });
});
