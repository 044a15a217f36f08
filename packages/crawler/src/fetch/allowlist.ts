import ipaddr from 'ipaddr.js';

type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

/**
 * PRIVATE_HOST_ALLOWLIST parsed: hostnames allow whatever they resolve to, IPs and CIDRs allow those addresses. An
 * entry naming a port (`127.0.0.1:8080`, `docs.internal:8443`, `[::1]:9000`, `10.0.0.0/8:81`) allows that port only,
 * and only when the port is known (`port` given); an entry without one allows every port.
 */
export interface Allowlist {
  allowsHost(hostname: string, port?: number): boolean;
  allowsAddress(ip: string, port?: number): boolean;
}

/** An entry and the port it is limited to (undefined = every port). */
interface Scoped<T> {
  entry: T;
  port?: number;
}

/** `host:port` or `[ipv6]:port` (a bare IPv6 address has colons of its own and no port). */
function splitPort(entry: string): { target: string; port?: number } {
  const bracketed = /^\[([^\]]+)\]:(\d{1,5})$/.exec(entry);
  if (bracketed) return { target: bracketed[1]!, port: Number(bracketed[2]) };
  const named = /^([^:]+):(\d{1,5})$/.exec(entry);
  if (named) return { target: named[1]!, port: Number(named[2]) };
  return { target: entry };
}

const portMatches = (scoped: { port?: number }, port: number | undefined) =>
  scoped.port === undefined || scoped.port === port;

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
  const hostnames: Scoped<string>[] = [];
  const cidrs: Scoped<Cidr>[] = [];
  for (const raw of entries) {
    const { target, port } = splitPort(raw.trim().toLowerCase());
    const entry = normalizeHostname(target);
    if (!entry) continue;
    const cidr = parseCidrEntry(entry);
    if (cidr) cidrs.push({ entry: cidr, port });
    else hostnames.push({ entry, port });
  }
  return {
    allowsHost(hostname, port) {
      const name = normalizeHostname(hostname);
      return hostnames.some((h) => h.entry === name && portMatches(h, port));
    },
    allowsAddress(ip, port) {
      const address = parseComparableAddress(ip);
      if (!address) return false;
      return cidrs.some(
        (c) => portMatches(c, port) && c.entry[0].kind() === address.kind() && address.match(c.entry[0], c.entry[1]),
      );
    },
  };
}
