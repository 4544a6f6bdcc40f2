import ipaddr from 'ipaddr.js';

/** Which addresses an outgoing fetch may connect to (docs/websites.md "Guarded fetches"). */
export interface AddressPolicy {
  /**
   * Also allow loopback, private (RFC 1918), link-local, carrier-grade NAT and IPv6 unique-local
   * addresses: a self-hosted network whose websites live on a LAN, and tests. Default false.
   * Cloud metadata endpoints, unspecified, multicast and broadcast addresses stay refused.
   */
  readonly allowPrivateAddresses: boolean;
  /**
   * Addresses or CIDR ranges allowed whatever their kind (e.g. `10.20.0.5/32`, one intranet
   * website), narrower than allowPrivateAddresses. Cloud metadata addresses stay refused. Default none.
   */
  readonly allowedRanges?: readonly string[];
}

export type AddressVerdict = { readonly allowed: true } | { readonly allowed: false; readonly reason: string };

/** The ranges allowPrivateAddresses opens (ipaddr.js range names). */
const PRIVATE_RANGES: ReadonlySet<string> = new Set([
  'loopback',
  'private',
  'linkLocal',
  'carrierGradeNat',
  'uniqueLocal',
]);

/**
 * Instance metadata services of the large clouds (AWS, GCP and Azure share 169.254.169.254; AWS
 * IPv6, ECS task metadata, Alibaba): refused even on a network that allows private addresses,
 * since a fetch there hands out the host's credentials.
 */
const METADATA_ADDRESSES: ReadonlySet<string> = new Set(
  ['169.254.169.254', '169.254.170.2', '100.100.100.200', 'fd00:ec2::254'].map((a) =>
    ipaddr.parse(a).toNormalizedString(),
  ),
);

/**
 * The IPv4 address an IPv6 form carries in its last 32 bits: IPv4-mapped (::ffff:a.b.c.d),
 * IPv4-translated (::ffff:0:a.b.c.d), IPv4-compatible (::a.b.c.d, not :: or ::1) and the NAT64
 * well-known prefix (64:ff9b::/96). A connection to one reaches that IPv4 address (or, through a
 * NAT64 gateway, asks for it), so every rule must see it, not the wrapper.
 */
function embeddedIpv4(address: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | undefined {
  if (address.kind() !== 'ipv6') return undefined;
  const p = (address as ipaddr.IPv6).parts;
  const prefix = (...head: number[]) => head.every((part, i) => p[i] === part);
  const wrapped =
    prefix(0, 0, 0, 0, 0, 0xffff) ||
    prefix(0, 0, 0, 0, 0xffff, 0) ||
    prefix(0x64, 0xff9b, 0, 0, 0, 0) ||
    (prefix(0, 0, 0, 0, 0, 0) && !(p[6] === 0 && (p[7] ?? 0) <= 1));
  if (!wrapped) return undefined;
  const [high, low] = [p[6] ?? 0, p[7] ?? 0];
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/**
 * Whether a fetch may connect to `address` (an IP address as text, as a resolver or a socket
 * gives it). Only ordinary public unicast passes by default; everything ipaddr.js places in a
 * special range (loopback, private, link-local, CGNAT, multicast, documentation, reserved, IPv6
 * unique-local, 6to4, Teredo, ...) is refused, so a range nobody listed here is refused too. An
 * IPv6 form carrying an IPv4 address (embeddedIpv4) is judged as that IPv4 address by every rule.
 */
export function checkAddress(address: string, policy: AddressPolicy): AddressVerdict {
  if (!ipaddr.isValid(address)) return { allowed: false, reason: `${JSON.stringify(address)} is not an IP address` };
  const given = ipaddr.parse(address);
  const parsed = embeddedIpv4(given) ?? given;
  const range = parsed.range();
  if (range === 'unicast') return { allowed: true };
  if (METADATA_ADDRESSES.has(parsed.toNormalizedString()))
    return { allowed: false, reason: `${address} is a cloud metadata address` };
  if (policy.allowPrivateAddresses && PRIVATE_RANGES.has(range)) return { allowed: true };
  if (policy.allowedRanges?.some((cidr) => inRange(parsed, cidr))) return { allowed: true };
  return { allowed: false, reason: `${address} is in a ${describeRange(range)} range` };
}

/** Whether `address` is in `cidr` (a bare address is its own /32 or /128); one of another family never is. */
function inRange(address: ipaddr.IPv4 | ipaddr.IPv6, cidr: string): boolean {
  const [network, bits] = cidr.includes('/')
    ? ipaddr.parseCIDR(cidr)
    : [ipaddr.parse(cidr), address.kind() === 'ipv4' ? 32 : 128];
  return network.kind() === address.kind() && address.match(network, bits);
}

/** Whether `entry` is an IP address or a CIDR range (the fetchAllowedAddresses setting). */
export function isAddressOrRange(entry: string): boolean {
  if (!entry.includes('/')) return ipaddr.isValid(entry);
  try {
    ipaddr.parseCIDR(entry);
    return true;
  } catch {
    return false;
  }
}

const RANGE_NAMES: Readonly<Record<string, string>> = {
  loopback: 'loopback',
  private: 'private',
  linkLocal: 'link-local',
  carrierGradeNat: 'carrier-grade NAT',
  uniqueLocal: 'unique-local',
  unspecified: 'unspecified',
  multicast: 'multicast',
  broadcast: 'broadcast',
  ipv4Mapped: 'IPv4-mapped IPv6',
  rfc6052: 'NAT64',
  rfc6145: 'IPv4-translated',
  '6to4': '6to4',
  teredo: 'Teredo',
  reserved: 'reserved',
};

function describeRange(range: string): string {
  return RANGE_NAMES[range] ?? range;
}
