import ipaddr from 'ipaddr.js';

type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** PRIVATE_HOST_ALLOWLIST parsed: hostnames allow whatever they resolve to, IPs and CIDRs allow those addresses. */
export interface Allowlist {
  allowsHost(hostname: string): boolean;
  allowsAddress(ip: string): boolean;
}

/** Lower-cased, without IPv6 brackets or the trailing root dot, so `LocalHost.` matches `localhost`. */
export function normalizeHostname(hostname: string): string {
  const lower = hostname.trim().toLowerCase();
  const unbracketed = lower.startsWith('[') && lower.endsWith(']') ? lower.slice(1, -1) : lower;
  return unbracketed.endsWith('.') ? unbracketed.slice(0, -1) : unbracketed;
}

/** IPv4-mapped IPv6 addresses compare as their IPv4 so `127.0.0.1` also allows `::ffff:127.0.0.1`. */
export function parseComparableAddress(ip: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const bare = normalizeHostname(ip);
  if (!ipaddr.isValid(bare)) return null;
  return ipaddr.process(bare);
}

function parseCidrEntry(entry: string): Cidr | null {
  if (ipaddr.isValidCIDR(entry)) {
    const [net, bits] = ipaddr.parseCIDR(entry);
    if (net.kind() === 'ipv6' && (net as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
      return [(net as ipaddr.IPv6).toIPv4Address(), bits - 96];
    }
    return [net, bits];
  }
  const address = parseComparableAddress(entry);
  if (!address) return null;
  return [address, address.kind() === 'ipv4' ? 32 : 128];
}

export function parseAllowlist(entries: readonly string[]): Allowlist {
  const hostnames = new Set<string>();
  const cidrs: Cidr[] = [];
  for (const raw of entries) {
    const entry = normalizeHostname(raw);
    if (!entry) continue;
    const cidr = parseCidrEntry(entry);
    if (cidr) cidrs.push(cidr);
    else hostnames.add(entry);
  }
  return {
    allowsHost: (hostname) => hostnames.has(normalizeHostname(hostname)),
    allowsAddress(ip) {
      const address = parseComparableAddress(ip);
      if (!address) return false;
      return cidrs.some(([net, bits]) => net.kind() === address.kind() && address.match(net, bits));
    },
  };
}
