import ipaddr from 'ipaddr.js';

type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

// Checked before ipaddr's own range() so the reason is more specific than "reserved".
const IPV4_NAMED_RANGES: Array<[string, string[]]> = [
  ['a documentation address', ['192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24']],
  ['a benchmarking address', ['198.18.0.0/15']],
  ['an IETF protocol assignment address', ['192.0.0.0/24']],
];

const IPV6_NAMED_RANGES: Array<[string, string[]]> = [
  ['a documentation address', ['2001:db8::/32', '3fff::/20']],
  ['a local-use NAT64 address', ['64:ff9b:1::/48']],
];

// Outside 2000::/3 nothing is globally routed, whatever ipaddr.js calls it.
const IPV6_GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

const IPV4_RANGE_REASONS: Record<string, string> = {
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT address',
  private: 'a private address',
  reserved: 'a reserved address',
  as112: 'an AS112 address',
  amt: 'an AMT relay address',
};

const IPV6_RANGE_REASONS: Record<string, string> = {
  unspecified: 'an unspecified address',
  linkLocal: 'a link-local address',
  multicast: 'a multicast address',
  loopback: 'a loopback address',
  uniqueLocal: 'a private (unique local) address',
  deprecatedSiteLocal: 'a site-local address',
  discard: 'a discard-only address',
  benchmarking: 'a benchmarking address',
  reserved: 'a reserved address',
};

const CLOUD_METADATA_V4 = '169.254.169.254';

function parseNamedRanges(table: Array<[string, string[]]>): Array<[string, Cidr[]]> {
  return table.map(([reason, cidrs]) => [reason, cidrs.map((c) => ipaddr.parseCIDR(c))]);
}

const V4_NAMED = parseNamedRanges(IPV4_NAMED_RANGES);
const V6_NAMED = parseNamedRanges(IPV6_NAMED_RANGES);

function findNamedRange(address: ipaddr.IPv4 | ipaddr.IPv6, table: Array<[string, Cidr[]]>): string | null {
  for (const [reason, cidrs] of table) {
    if (cidrs.some(([net, bits]) => net.kind() === address.kind() && address.match(net, bits))) return reason;
  }
  return null;
}

function classifyIPv4(address: ipaddr.IPv4): string | null {
  if (address.toString() === CLOUD_METADATA_V4) return 'a link-local address (cloud metadata endpoint)';
  const named = findNamedRange(address, V4_NAMED);
  if (named) return named;
  const range = address.range();
  if (range === 'unicast') return null;
  return IPV4_RANGE_REASONS[range] ?? `a special-purpose address (${range})`;
}

function ipv4FromParts(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/** The IPv4 address an IPv6 transition address carries, with the mechanism's name. */
function findEmbeddedIPv4(address: ipaddr.IPv6): [string, ipaddr.IPv4] | null {
  const p = address.parts as [number, number, number, number, number, number, number, number];
  const range = address.range();
  if (range === 'ipv4Mapped') return ['an IPv4-mapped address', address.toIPv4Address()];
  if (range === 'rfc6145') return ['an IPv4-translated address', ipv4FromParts(p[6], p[7])];
  if (range === 'rfc6052') return ['a NAT64 address', ipv4FromParts(p[6], p[7])];
  if (range === '6to4') return ['a 6to4 address', ipv4FromParts(p[1], p[2])];
  // Teredo stores the client address inverted.
  if (range === 'teredo') return ['a Teredo address', ipv4FromParts(p[6] ^ 0xffff, p[7] ^ 0xffff)];
  const compatible = p.slice(0, 6).every((part) => part === 0) && (p[6] !== 0 || p[7] > 1);
  if (compatible) return ['an IPv4-compatible address', ipv4FromParts(p[6], p[7])];
  return null;
}

function classifyIPv6(address: ipaddr.IPv6): string | null {
  const embedded = findEmbeddedIPv4(address);
  if (embedded) {
    const [mechanism, ipv4] = embedded;
    const reason = classifyIPv4(ipv4);
    return reason ? `${mechanism} embedding ${ipv4.toString()}, ${reason}` : null;
  }
  const named = findNamedRange(address, V6_NAMED);
  if (named) return named;
  const range = address.range();
  const reason = IPV6_RANGE_REASONS[range];
  if (reason) return reason;
  if (!address.match(IPV6_GLOBAL_UNICAST)) return 'an address outside IPv6 global unicast space';
  return range === 'unicast' ? null : `a special-purpose address (${range})`;
}

/**
 * Why an IP address must not be fetched, or null when it is public.
 * Unparseable input counts as non-public: a guard must fail closed.
 */
export function classifyAddress(ip: string): string | null {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  if (!ipaddr.isValid(bare)) return 'not an IP address';
  const address = ipaddr.parse(bare);
  return address.kind() === 'ipv4' ? classifyIPv4(address as ipaddr.IPv4) : classifyIPv6(address as ipaddr.IPv6);
}
