import { isIP, type LookupFunction } from 'node:net';
import type { buildConnector } from 'undici';
import { checkAddress, type AddressPolicy } from './address-policy.js';
import { createHostResolver, describeDnsError, type HostResolver, type ResolvedAddress } from './host-resolver.js';

/** Why a guarded fetch did not return an answer; callers branch on it, the message says the detail. */
export type FetchFailure = 'scheme' | 'credentials' | 'address' | 'dns' | 'redirect' | 'timeout' | 'network';

export class GuardedFetchError extends Error {
  constructor(
    readonly failure: FetchFailure,
    message: string,
  ) {
    super(message);
    this.name = 'GuardedFetchError';
  }
}

export interface GuardedFetchOptions extends Partial<AddressPolicy> {
  /** Resolves host names; default the system's resolver (createHostResolver()). */
  readonly resolver?: Pick<HostResolver, 'resolveAddresses'>;
  /** The whole fetch, redirects and body included, in ms. Default 5000. */
  readonly timeoutMs?: number;
  /** Body bytes read at most; the rest is not read and the connection is closed. Default 64 KiB. */
  readonly maxBytes?: number;
  /**
   * Redirects followed at most (each re-checked); one more is
   * a `redirect` failure. 0 answers the 3xx itself. Default 3.
   */
  readonly maxRedirects?: number;
  readonly method?: 'GET' | 'POST';
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Buffer;
}

export interface GuardedResponse {
  /** The URL that answered (after redirects). */
  readonly url: string;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** At most maxBytes of the body. */
  readonly body: Buffer;
  /** Whether the body was longer than maxBytes (and cut). */
  readonly truncated: boolean;
  /** The address the answering connection was made to. */
  readonly remoteAddress: string;
  /** The URLs that redirected, in order. */
  readonly redirects: readonly string[];
}

export const GUARDED_FETCH_DEFAULTS = { timeoutMs: 5000, maxBytes: 64 * 1024, maxRedirects: 3 } as const;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Fetches a URL given by a customer (an ownership check now, a webhook delivery later) without
 * letting it reach the service's own network (server-side request forgery, docs/websites.md
 * "Guarded fetches"): http and https only; every address the host resolves to must be public
 * (checkAddress); the connection goes to the address that was checked, because the check runs
 * inside the connection's own DNS lookup (no second resolution an attacker's DNS could answer
 * differently) and again on the connected socket; each redirect is a new URL checked the same
 * way, at most maxRedirects; the whole exchange has one deadline and the body one size cap.
 */
export async function guardedFetch(url: string, options: GuardedFetchOptions = {}): Promise<GuardedResponse> {
  const policy: AddressPolicy = {
    allowPrivateAddresses: options.allowPrivateAddresses ?? false,
    allowedRanges: options.allowedRanges ?? [],
  };
  const timeoutMs = options.timeoutMs ?? GUARDED_FETCH_DEFAULTS.timeoutMs;
  const maxBytes = options.maxBytes ?? GUARDED_FETCH_DEFAULTS.maxBytes;
  const maxRedirects = options.maxRedirects ?? GUARDED_FETCH_DEFAULTS.maxRedirects;
  const resolver = options.resolver ?? createHostResolver();
  const signal = AbortSignal.timeout(timeoutMs);
  // undici loads on the first outbound request: the settings check imports this module's address
  // rules, and a CLI command should not pay for an HTTP client it never uses. undici is CommonJS:
  // its exports are the default export of import(), in Node and in the bundle alike.
  const { Agent, buildConnector, request } = (await import('undici')).default;
  let remoteAddress = '';
  const agent = new Agent({
    connect: guardedConnector(buildConnector, policy, resolver, timeoutMs, (address) => (remoteAddress = address)),
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connections: 1,
  });
  const redirects: string[] = [];
  try {
    let current = checkUrl(url, policy);
    for (;;) {
      const response = await request(current, {
        dispatcher: agent,
        method: options.method ?? 'GET',
        headers: { 'user-agent': 'nodectl-verify', ...options.headers },
        body: options.body,
        signal,
      });
      const location = headerValue(response.headers.location);
      if (REDIRECTS.has(response.statusCode) && location !== undefined && maxRedirects > 0) {
        await response.body.dump();
        if (redirects.length >= maxRedirects)
          throw new GuardedFetchError('redirect', `${url} redirected more than ${maxRedirects} times`);
        redirects.push(current.href);
        current = checkUrl(new URL(location, current).href, policy);
        continue;
      }
      const { body, truncated } = await readCapped(response.body, maxBytes);
      return {
        url: current.href,
        status: response.statusCode,
        headers: Object.fromEntries(Object.entries(response.headers).map(([k, v]) => [k, headerValue(v) ?? ''])),
        body,
        truncated,
        remoteAddress,
        redirects,
      };
    }
  } catch (error) {
    throw toFetchError(error, signal, timeoutMs);
  } finally {
    await agent.destroy().catch(() => undefined);
  }
}

/**
 * Parses and checks a URL before any connection: scheme, credentials, and a literal IP host (which no lookup will see).
 */
function checkUrl(text: string, policy: AddressPolicy): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new GuardedFetchError('scheme', `${JSON.stringify(text)} is not an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new GuardedFetchError('scheme', `${url.protocol} URLs are not fetched: only http and https`);
  if (url.username !== '' || url.password !== '')
    throw new GuardedFetchError('credentials', `${url.host}: URLs with a user name or password are not fetched`);
  // WHATWG parsing already turned decimal, octal and hex IPv4 forms (2130706433, 0177.0.0.1) into dotted quads.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host)) {
    const verdict = checkAddress(host, policy);
    if (!verdict.allowed) throw new GuardedFetchError('address', `${url.host} is not fetched: ${verdict.reason}`);
  }
  return url;
}

/**
 * The agent's connector: the socket's own lookup resolves the name and refuses the connection
 * unless every address passes, so what is checked is what is connected to; the connected
 * socket's peer address is checked once more.
 */
function guardedConnector(
  build: typeof buildConnector,
  policy: AddressPolicy,
  resolver: Pick<HostResolver, 'resolveAddresses'>,
  timeoutMs: number,
  onConnected: (address: string) => void,
): buildConnector.connector {
  const connect = build({ lookup: pinnedLookup(policy, resolver), timeout: timeoutMs });
  return (options, callback) => {
    connect(options, (error, socket) => {
      if (error || !socket) return callback(error ?? new Error('no socket'), null);
      const verdict = checkAddress(socket.remoteAddress ?? '', policy);
      if (!verdict.allowed) {
        socket.destroy();
        return callback(
          new GuardedFetchError(
            'address',
            `${options.hostname} is not fetched: the connection reached ${socket.remoteAddress}, and ${verdict.reason}`,
          ),
          null,
        );
      }
      onConnected(socket.remoteAddress ?? '');
      callback(null, socket);
    });
  };
}

/** A net.connect lookup over `resolver` that fails unless every address of the name is allowed. */
function pinnedLookup(policy: AddressPolicy, resolver: Pick<HostResolver, 'resolveAddresses'>): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    resolveChecked(hostname, policy, resolver).then(
      (addresses) => {
        const family = lookupOptions.family === 4 || lookupOptions.family === 6 ? lookupOptions.family : undefined;
        const usable = family === undefined ? addresses : addresses.filter((a) => a.family === family);
        if (usable.length === 0)
          return callback(new GuardedFetchError('dns', `${hostname} has no IPv${family} address`), '', 0);
        if (lookupOptions.all) return (callback as unknown as (e: null, all: ResolvedAddress[]) => void)(null, usable);
        callback(null, usable[0]!.address, usable[0]!.family);
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, '', 0),
    );
  };
}

async function resolveChecked(
  hostname: string,
  policy: AddressPolicy,
  resolver: Pick<HostResolver, 'resolveAddresses'>,
): Promise<ResolvedAddress[]> {
  let addresses: ResolvedAddress[];
  try {
    addresses = await resolver.resolveAddresses(hostname);
  } catch (error) {
    throw new GuardedFetchError('dns', `${hostname} could not be resolved: ${describeDnsError(error)}`);
  }
  if (addresses.length === 0) throw new GuardedFetchError('dns', `${hostname} has no address`);
  for (const { address } of addresses) {
    const verdict = checkAddress(address, policy);
    if (!verdict.allowed)
      throw new GuardedFetchError(
        'address',
        `${hostname} is not fetched: it resolves to ${address}, and ${verdict.reason}`,
      );
  }
  return addresses;
}

async function readCapped(
  body: AsyncIterable<Buffer> & { destroy(): unknown },
  maxBytes: number,
): Promise<{ body: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    if (size + chunk.length > maxBytes) {
      chunks.push(chunk.subarray(0, maxBytes - size));
      body.destroy(); // stop reading: the rest never leaves the socket buffer
      return { body: Buffer.concat(chunks), truncated: true };
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return { body: Buffer.concat(chunks), truncated: false };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Our refusals pass through; a deadline is `timeout`; anything else from the network is `network`. */
function toFetchError(error: unknown, signal: AbortSignal, timeoutMs: number): GuardedFetchError {
  for (let e: unknown = error; e; e = (e as { cause?: unknown }).cause) if (e instanceof GuardedFetchError) return e;
  const name = (error as Error | undefined)?.name ?? '';
  if (signal.aborted || /Timeout/.test(name) || (error as { code?: string })?.code === 'UND_ERR_CONNECT_TIMEOUT')
    return new GuardedFetchError('timeout', `no complete answer within ${timeoutMs} ms`);
  const code = (error as { code?: string })?.code;
  const message = error instanceof Error ? error.message : String(error);
  return new GuardedFetchError('network', code ? `${code}: ${message}` : message);
}
