import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';

/** One address of a host name, as a connection uses it. */
export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/**
 * How nodectl resolves names for ownership checks and guarded fetches: addresses (A and AAAA)
 * and TXT records. One object serves both, so a configured resolver answers the fetcher and the
 * dns_txt check alike.
 */
export interface HostResolver {
  resolveAddresses(hostname: string): Promise<ResolvedAddress[]>;
  /** TXT records of `name`, each as its character strings (join them to read the record). */
  resolveTxt(name: string): Promise<string[][]>;
}

export interface HostResolverOptions {
  /**
   * DNS servers (`ip` or `ip:port`, `[ipv6]:port`) to ask instead of the system's. Default: none,
   * which resolves addresses like every other program on the host (getaddrinfo: /etc/hosts, then
   * the system's servers) and TXT records through the system's servers.
   */
  readonly servers?: readonly string[];
  /** How long one query waits for an answer before it is sent again, in ms. Default 2000. */
  readonly timeoutMs?: number;
  /** How many times a query is sent to each server before it fails. Default 2. */
  readonly tries?: number;
}

/** A resolver from the settings' servers, or the system's (docs/websites.md "DNS"). */
export function createHostResolver(options: HostResolverOptions = {}): HostResolver {
  const resolver = new dns.Resolver({ timeout: options.timeoutMs ?? 2000, tries: options.tries ?? 2 });
  const servers = options.servers ?? [];
  if (servers.length > 0) resolver.setServers([...servers]);
  return {
    resolveAddresses: (hostname) =>
      isIP(hostname)
        ? Promise.resolve([{ address: hostname, family: isIP(hostname) as 4 | 6 }])
        : servers.length > 0
          ? queryAddresses(resolver, hostname)
          : lookupAddresses(hostname),
    resolveTxt: (name) => resolver.resolveTxt(name),
  };
}

async function lookupAddresses(hostname: string): Promise<ResolvedAddress[]> {
  const answers = await dns.lookup(hostname, { all: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
}

/** "No such name" and "no record of this type" mean an empty answer for one family; anything else is an error. */
const EMPTY_ANSWER = new Set(['ENODATA', 'ENOTFOUND']);

/** A and AAAA through the configured servers; empty when neither exists, the first real error when one query failed. */
async function queryAddresses(
  resolver: InstanceType<typeof dns.Resolver>,
  hostname: string,
): Promise<ResolvedAddress[]> {
  const [v4, v6] = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
  const addresses: ResolvedAddress[] = [];
  const errors: unknown[] = [];
  for (const [result, family] of [
    [v4, 4],
    [v6, 6],
  ] as const) {
    if (result.status === 'fulfilled') addresses.push(...result.value.map((address) => ({ address, family })));
    else if (!EMPTY_ANSWER.has((result.reason as NodeJS.ErrnoException).code ?? '')) errors.push(result.reason);
  }
  if (addresses.length === 0 && errors.length > 0) throw errors[0];
  return addresses;
}

/** A DNS failure in words for evidence and messages: NXDOMAIN, no record, SERVFAIL, timeout, refused. */
export function describeDnsError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOTFOUND':
      return 'the name does not exist (NXDOMAIN)';
    case 'ENODATA':
      return 'the name has no record of this type';
    case 'ESERVFAIL':
      return 'the DNS server failed to answer (SERVFAIL)';
    case 'ETIMEOUT':
      return 'the DNS query timed out';
    case 'ECONNREFUSED':
      return 'the DNS server refused the connection';
    case 'EREFUSED':
      return 'the DNS server refused the query (REFUSED)';
    default:
      return `the DNS query failed (${code ?? (error instanceof Error ? error.message : String(error))})`;
  }
}
