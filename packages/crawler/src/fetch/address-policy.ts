import { promises as dnsPromises, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { parseAllowlist, parseComparableAddress, normalizeHostname, type Allowlist } from './allowlist';
import { classifyAddress } from './classify-address';

export { classifyAddress } from './classify-address';

export class BlockedUrlError extends Error {
  readonly code = 'URL_BLOCKED';

  /** `target` is the URL (or, at connect time, the hostname) refused; `reason` says why. */
  constructor(
    readonly target: string,
    readonly reason: string,
  ) {
    super(`Blocked ${target}: ${reason}`);
    this.name = 'BlockedUrlError';
  }
}

export type ResolveHost = (hostname: string) => Promise<LookupAddress[]>;

export interface AddressPolicyOptions {
  /** PRIVATE_HOST_ALLOWLIST entries: hostnames, IPs or CIDRs, each optionally with `:port` (that port only). */
  allowlist: readonly string[];
  resolve?: ResolveHost;
}

export interface AddressPolicy {
  /** Rejects with BlockedUrlError unless the URL is http(s) and every address its host resolves to may be fetched. */
  assertUrlAllowed(url: string | URL): Promise<void>;
  /**
   * For `http.request({ lookup })`: the address checked is the address connected to, so DNS rebinding gains nothing.
   * It does not know the port, so allow-list entries limited to a port open nothing here: use lookupFor.
   */
  lookup: LookupFunction;
  /** `lookup` for a connection to `port`, where entries limited to that port count too. */
  lookupFor(port: number): LookupFunction;
}

const ALLOWED_PROTOCOLS = new Set(['http:', 'https:']);

const resolveWithDns: ResolveHost = (hostname) => dnsPromises.lookup(hostname, { all: true, verbatim: true });

/** Why none of these addresses may be fetched for `hostname` (on `port`, when known), or null when all may. */
function findRefusal(
  hostname: string,
  addresses: LookupAddress[],
  allowlist: Allowlist,
  port: number | undefined,
): string | null {
  if (allowlist.allowsHost(hostname, port)) return null;
  if (addresses.length === 0) return `${hostname} resolves to no address`;
  for (const { address } of addresses) {
    if (allowlist.allowsAddress(address, port)) continue;
    const reason = classifyAddress(address);
    if (reason)
      return address === hostname ? `${address} is ${reason}` : `${hostname} resolves to ${address}, ${reason}`;
  }
  return null;
}

function parseUrl(url: string | URL): URL {
  if (url instanceof URL) return url;
  try {
    return new URL(url);
  } catch {
    throw new BlockedUrlError(String(url), 'not a valid absolute URL');
  }
}

function matchesFamily(entry: LookupAddress, family: unknown): boolean {
  if (family === 4 || family === 'IPv4') return entry.family === 4;
  if (family === 6 || family === 'IPv6') return entry.family === 6;
  return true;
}

export function createAddressPolicy(options: AddressPolicyOptions): AddressPolicy {
  const allowlist = parseAllowlist(options.allowlist);
  const resolve = options.resolve ?? resolveWithDns;

  async function assertUrlAllowed(input: string | URL): Promise<void> {
    const url = parseUrl(input);
    if (!ALLOWED_PROTOCOLS.has(url.protocol)) {
      throw new BlockedUrlError(url.href, `only http and https URLs are fetched, not ${url.protocol}`);
    }
    const hostname = normalizeHostname(url.hostname);
    const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
    if (allowlist.allowsHost(hostname, port)) return;
    // WHATWG URL has already turned 2130706433, 0x7f000001, 0177.0.0.1 and 127.1 into 127.0.0.1.
    const literal = parseComparableAddress(hostname);
    const addresses = literal
      ? [{ address: hostname, family: literal.kind() === 'ipv4' ? 4 : 6 }]
      : await resolve(hostname);
    const refusal = findRefusal(hostname, addresses, allowlist, port);
    if (refusal) throw new BlockedUrlError(url.href, refusal);
  }

  const lookupFor =
    (port: number | undefined): LookupFunction =>
    (hostname, lookupOptions, callback) => {
      const name = normalizeHostname(hostname);
      resolve(name).then(
        (resolved) => {
          const addresses = resolved.filter((entry) => matchesFamily(entry, lookupOptions.family));
          const refusal =
            addresses.length === 0
              ? `${name} resolves to no usable address`
              : findRefusal(name, addresses, allowlist, port);
          if (refusal) {
            callback(new BlockedUrlError(name, refusal), '', undefined);
          } else if (lookupOptions.all) {
            callback(null, addresses);
          } else {
            const [first] = addresses as [LookupAddress];
            callback(null, first.address, first.family);
          }
        },
        (error: NodeJS.ErrnoException) => callback(error, '', undefined),
      );
    };

  return { assertUrlAllowed, lookup: lookupFor(undefined), lookupFor };
}
