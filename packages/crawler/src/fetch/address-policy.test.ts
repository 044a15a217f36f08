import http from 'node:http';
import type { LookupAddress } from 'node:dns';
import { BlockedUrlError, classifyAddress, createAddressPolicy } from './address-policy';
import { startFixtureServer, type FixtureServer } from '@docshelf/testing/targets/fixture-server';

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'a loopback address'],
    ['127.255.255.254', 'a loopback address'],
    ['::1', 'a loopback address'],
    ['0.0.0.0', 'an unspecified address'],
    ['0.1.2.3', 'an unspecified address'],
    ['::', 'an unspecified address'],
    ['10.1.2.3', 'a private address'],
    ['172.16.0.1', 'a private address'],
    ['172.31.255.255', 'a private address'],
    ['192.168.1.1', 'a private address'],
    ['fc00::1', 'a private (unique local) address'],
    ['fd12:3456::1', 'a private (unique local) address'],
    ['169.254.169.254', 'a link-local address (cloud metadata endpoint)'],
    ['169.254.1.1', 'a link-local address'],
    ['fe80::1', 'a link-local address'],
    ['100.64.0.1', 'a carrier-grade NAT address'],
    ['100.127.255.255', 'a carrier-grade NAT address'],
    ['198.18.0.1', 'a benchmarking address'],
    ['198.19.255.255', 'a benchmarking address'],
    ['224.0.0.1', 'a multicast address'],
    ['ff02::1', 'a multicast address'],
    ['255.255.255.255', 'a broadcast address'],
    ['240.0.0.1', 'a reserved address'],
    ['192.0.0.8', 'an IETF protocol assignment address'],
    ['192.0.2.1', 'a documentation address'],
    ['198.51.100.7', 'a documentation address'],
    ['203.0.113.9', 'a documentation address'],
    ['2001:db8::1', 'a documentation address'],
    ['fec0::1', 'a site-local address'],
    ['::ffff:127.0.0.1', 'an IPv4-mapped address embedding 127.0.0.1, a loopback address'],
    ['::ffff:7f00:1', 'an IPv4-mapped address embedding 127.0.0.1, a loopback address'],
    [
      '::ffff:169.254.169.254',
      'an IPv4-mapped address embedding 169.254.169.254, a link-local address (cloud metadata endpoint)',
    ],
    ['::7f00:1', 'an IPv4-compatible address embedding 127.0.0.1, a loopback address'],
    ['::a00:1', 'an IPv4-compatible address embedding 10.0.0.1, a private address'],
    ['64:ff9b::10.0.0.1', 'a NAT64 address embedding 10.0.0.1, a private address'],
    ['2002:c0a8:101::1', 'a 6to4 address embedding 192.168.1.1, a private address'],
    // Teredo stores the client address bit-inverted: 80ff:fffe is 127.0.0.1.
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'a Teredo address embedding 127.0.0.1, a loopback address'],
    ['4000::1', 'an address outside IPv6 global unicast space'],
    ['not-an-ip', 'not an IP address'],
  ])('refuses %s as %s', (ip, reason) => {
    expect(classifyAddress(ip)).toBe(reason);
  });

  it('refuses the dotted IPv4-compatible form, which ipaddr.js reads as IPv4-mapped', () => {
    expect(classifyAddress('::127.0.0.1')).toMatch(/embedding 127\.0\.0\.1, a loopback address$/);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700::1',
    '2001:4860:4860::8888',
    '::ffff:93.184.216.34',
    '64:ff9b::93.184.216.34',
  ])('allows the public address %s', (ip) => {
    expect(classifyAddress(ip)).toBeNull();
  });
});

async function refusal(promise: Promise<unknown>): Promise<BlockedUrlError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(BlockedUrlError);
  return error as BlockedUrlError;
}

/** For names that cannot exist on this machine's DNS (a docs host on a private network, a rebinding domain). */
function resolveFrom(table: Record<string, string[]>) {
  return async (hostname: string): Promise<LookupAddress[]> => {
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

describe('assertUrlAllowed', () => {
  const policy = createAddressPolicy({ allowlist: [] });

  it('names the URL, the address and the reason', async () => {
    const error = await refusal(policy.assertUrlAllowed('http://127.0.0.1:8080/'));
    expect(error.message).toBe('Blocked http://127.0.0.1:8080/: 127.0.0.1 is a loopback address');
    expect(error.code).toBe('URL_BLOCKED');
  });

  it.each([
    ['http://2130706433/', 'loopback'],
    ['http://0x7f000001/', 'loopback'],
    ['http://0177.0.0.1/', 'loopback'],
    ['http://127.1/', 'loopback'],
    ['http://127.0.0.1./', 'loopback'],
    ['http://[::1]/', 'loopback'],
    ['http://[::ffff:127.0.0.1]/', 'IPv4-mapped address embedding 127.0.0.1, a loopback'],
    ['http://[::ffff:7f00:1]:3000/x', 'IPv4-mapped address embedding 127.0.0.1, a loopback'],
    ['http://169.254.169.254/latest/meta-data/', 'cloud metadata'],
    ['http://[fe80::1]/', 'link-local'],
    ['https://10.0.0.1/', 'private'],
    ['http://0.0.0.0:3000/', 'unspecified'],
    ['http://localhost:3000/', 'localhost resolves to 127.0.0.1, a loopback address'],
    ['http://LocalHost./', 'localhost resolves to 127.0.0.1'],
  ])('refuses %s', async (url, reason) => {
    const error = await refusal(policy.assertUrlAllowed(url));
    expect(error.message).toContain(reason);
  });

  it.each([
    'file:///etc/passwd',
    'ftp://example.com/',
    'data:text/html,hi',
    'javascript:alert(1)',
    'gopher://127.0.0.1:6379/_INFO',
  ])('refuses the non-http scheme of %s', async (url) => {
    const error = await refusal(policy.assertUrlAllowed(url));
    expect(error.message).toContain('only http and https URLs are fetched');
  });

  it('refuses what is not a URL', async () => {
    expect((await refusal(policy.assertUrlAllowed('not a url'))).message).toContain('not a valid absolute URL');
  });

  it('allows public literal addresses without asking DNS', async () => {
    await expect(policy.assertUrlAllowed('http://93.184.216.34/')).resolves.toBeUndefined();
    await expect(policy.assertUrlAllowed(new URL('https://[2606:4700::1]:8443/docs'))).resolves.toBeUndefined();
  });

  it('refuses a host when any one of its addresses is not public', async () => {
    const resolve = resolveFrom({ 'docs.example': ['93.184.216.34', '10.0.0.5'], 'public.example': ['93.184.216.34'] });
    const mixed = createAddressPolicy({ allowlist: [], resolve });
    const error = await refusal(mixed.assertUrlAllowed('https://docs.example/'));
    expect(error.message).toBe('Blocked https://docs.example/: docs.example resolves to 10.0.0.5, a private address');
    await expect(mixed.assertUrlAllowed('https://public.example/')).resolves.toBeUndefined();
  });

  it('lets DNS failures through as they are, for the caller to report', async () => {
    await expect(policy.assertUrlAllowed('http://does-not-exist.invalid/')).rejects.toMatchObject({
      code: 'ENOTFOUND',
    });
  });
});

describe('allowlist', () => {
  it('by hostname allows that name, whatever it resolves to, and nothing else', async () => {
    const policy = createAddressPolicy({
      allowlist: ['LocalHost', 'docs.internal'],
      resolve: resolveFrom({ 'docs.internal': ['10.1.1.1'], 'other.internal': ['10.1.1.1'], localhost: ['127.0.0.1'] }),
    });
    await expect(policy.assertUrlAllowed('http://localhost:8080/')).resolves.toBeUndefined();
    await expect(policy.assertUrlAllowed('http://LOCALHOST./')).resolves.toBeUndefined();
    await expect(policy.assertUrlAllowed('https://docs.internal/guide')).resolves.toBeUndefined();
    await refusal(policy.assertUrlAllowed('https://other.internal/'));
    await refusal(policy.assertUrlAllowed('http://127.0.0.1:8080/'));
  });

  it('by IP allows that address under any name, and no other address', async () => {
    const policy = createAddressPolicy({ allowlist: ['127.0.0.1'] });
    await expect(policy.assertUrlAllowed('http://127.0.0.1/')).resolves.toBeUndefined();
    await expect(policy.assertUrlAllowed('http://localhost/')).resolves.toBeUndefined();
    await expect(policy.assertUrlAllowed('http://[::ffff:127.0.0.1]/')).resolves.toBeUndefined();
    await refusal(policy.assertUrlAllowed('http://127.0.0.2/'));
    await refusal(policy.assertUrlAllowed('http://[::1]/'));
  });

  it('by CIDR allows the addresses inside it only', async () => {
    const policy = createAddressPolicy({ allowlist: ['127.0.0.0/8', '::1'] });
    await expect(policy.assertUrlAllowed('http://127.0.0.2:9000/')).resolves.toBeUndefined();
    await expect(policy.assertUrlAllowed('http://127.1/')).resolves.toBeUndefined();
    await expect(policy.assertUrlAllowed('http://[::1]/')).resolves.toBeUndefined();
    await refusal(policy.assertUrlAllowed('http://10.0.0.1/'));
    await refusal(policy.assertUrlAllowed('http://169.254.169.254/'));
  });

  it('by host:port or IP:port opens only that port; a plain entry keeps meaning every port', async () => {
    const policy = createAddressPolicy({
      allowlist: ['127.0.0.1:8080', 'docs.internal:8443', '[::1]:9000', '10.0.0.0/8:81', '192.168.1.5'],
      resolve: resolveFrom({ 'docs.internal': ['10.1.1.1'], localhost: ['127.0.0.1'] }),
    });
    await expect(policy.assertUrlAllowed('http://127.0.0.1:8080/')).resolves.toBeUndefined();
    await expect(policy.assertUrlAllowed('http://localhost:8080/')).resolves.toBeUndefined();
    await refusal(policy.assertUrlAllowed('http://127.0.0.1:6379/'));
    await refusal(policy.assertUrlAllowed('http://127.0.0.1/'));
    await expect(policy.assertUrlAllowed('https://docs.internal:8443/guide')).resolves.toBeUndefined();
    await refusal(policy.assertUrlAllowed('https://docs.internal/guide'));
    await expect(policy.assertUrlAllowed('http://[::1]:9000/')).resolves.toBeUndefined();
    await refusal(policy.assertUrlAllowed('http://[::1]:9001/'));
    await expect(policy.assertUrlAllowed('http://10.2.3.4:81/')).resolves.toBeUndefined();
    await refusal(policy.assertUrlAllowed('http://10.2.3.4:80/'));
    // Default ports count: http:// is port 80, https:// port 443.
    await expect(policy.assertUrlAllowed('http://192.168.1.5/')).resolves.toBeUndefined();
    await expect(policy.assertUrlAllowed('http://192.168.1.5:5432/')).resolves.toBeUndefined();
  });

  it('never opens a non-http scheme', async () => {
    const policy = createAddressPolicy({ allowlist: ['localhost', '127.0.0.0/8'] });
    await refusal(policy.assertUrlAllowed('file://localhost/etc/passwd'));
  });
});

describe('lookup, as used by http.request', () => {
  let server: FixtureServer;

  beforeAll(async () => {
    server = await startFixtureServer('127.0.0.1', (_request, response) => response.end('hello'), 'localhost');
  });
  afterAll(() => server.close());

  function get(url: string, lookup: ReturnType<typeof createAddressPolicy>['lookup']): Promise<number> {
    return new Promise((resolve, reject) => {
      http
        .get(url, { lookup, agent: false }, (response) => resolve(response.resume().statusCode ?? 0))
        .on('error', reject);
    });
  }

  it('refuses to connect to a name that resolves to a private address', async () => {
    const { lookup } = createAddressPolicy({ allowlist: [] });
    const error = await refusal(get(`http://localhost:${server.port}/`, lookup));
    expect(error.message).toBe('Blocked localhost: localhost resolves to 127.0.0.1, a loopback address');
    expect(server.connections).toBe(0);
  });

  it('connects to an address allow-listed with a port only on that port (lookupFor)', async () => {
    const policy = createAddressPolicy({ allowlist: [`127.0.0.1:${server.port}`] });
    await expect(get(`http://localhost:${server.port}/`, policy.lookupFor(server.port))).resolves.toBe(200);
    const error = await refusal(get(`http://localhost:${server.port}/`, policy.lookupFor(server.port + 1)));
    expect(error.message).toContain('loopback');
    // Without a port, a port-scoped entry opens nothing: a name rebound to the address finds it closed.
    await refusal(get(`http://localhost:${server.port}/`, policy.lookup));
  });

  it('connects when the name is allow-listed', async () => {
    const { lookup } = createAddressPolicy({ allowlist: ['localhost'] });
    await expect(get(`http://localhost:${server.port}/`, lookup)).resolves.toBe(200);
  });

  it('answers both the single-address and the all-addresses form, filtered by family', async () => {
    const { lookup } = createAddressPolicy({
      allowlist: [],
      resolve: resolveFrom({ 'dual.example': ['2606:4700::1', '93.184.216.34'] }),
    });
    const single = await new Promise<[string, number | undefined]>((resolve, reject) =>
      lookup('dual.example', { family: 4 }, (error, address, family) =>
        error ? reject(error) : resolve([address as string, family]),
      ),
    );
    expect(single).toEqual(['93.184.216.34', 4]);
    const all = await new Promise<unknown>((resolve, reject) =>
      lookup('dual.example', { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
    );
    expect(all).toEqual([
      { address: '2606:4700::1', family: 6 },
      { address: '93.184.216.34', family: 4 },
    ]);
  });
});
