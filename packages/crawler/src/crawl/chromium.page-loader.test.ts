import zlib from 'node:zlib';
import { createAddressPolicy } from '../fetch/address-policy';
import { startCanary, startFixtureServer, type FixtureServer } from '../fetch/test-support/fixture-server';
import { ChromiumPageLoader } from './chromium.page-loader';

const SITEMAP = '<?xml version="1.0"?><urlset><url><loc>http://localhost/docs/a</loc></url></urlset>';

let site: FixtureServer;
let canary: FixtureServer;
const loader = new ChromiumPageLoader({
  policy: createAddressPolicy({ allowlist: ['localhost'] }),
  browser: () => {
    throw new Error('site files are fetched over HTTP, never rendered');
  },
  timeoutMs: 10_000,
});

beforeAll(async () => {
  canary = await startCanary();
  site = await startFixtureServer(
    '127.0.0.1',
    (request, response) => {
      const path = new URL(request.url ?? '/', 'http://fixture').pathname;
      if (path === '/sitemap.xml') return response.writeHead(200, { 'content-type': 'application/xml' }).end(SITEMAP);
      if (path === '/sitemap.xml.gz')
        return response.writeHead(200, { 'content-type': 'application/gzip' }).end(zlib.gzipSync(SITEMAP));
      if (path === '/encoded.xml') {
        return response
          .writeHead(200, { 'content-type': 'application/xml', 'content-encoding': 'gzip' })
          .end(zlib.gzipSync(SITEMAP));
      }
      if (path === '/bomb.xml.gz')
        return response
          .writeHead(200, { 'content-type': 'application/gzip' })
          .end(zlib.gzipSync(Buffer.alloc(20 * 1024 * 1024)));
      if (path === '/to-canary.xml') return response.writeHead(302, { location: `${canary.origin}/sitemap.xml` }).end();
      response.writeHead(404).end();
    },
    'localhost',
  );
});

afterAll(async () => Promise.all([site.close(), canary.close()]));

describe('ChromiumPageLoader.fetchSiteFile', () => {
  const fetchSiteFile = (path: string, maxBytes = 1024 * 1024) =>
    loader.fetchSiteFile(`${site.origin}${path}`, { maxBytes });

  it('answers a sitemap as text, unpacking a gzipped file as well as a gzip content-encoding', async () => {
    expect(await fetchSiteFile('/sitemap.xml')).toBe(SITEMAP);
    expect(await fetchSiteFile('/sitemap.xml.gz')).toBe(SITEMAP);
    expect(await fetchSiteFile('/encoded.xml')).toBe(SITEMAP);
  });

  it('gives up (null) on a missing file, a gzip file that unpacks past maxBytes, and a redirect to a blocked address', async () => {
    expect(await fetchSiteFile('/missing.xml')).toBeNull();
    expect(await fetchSiteFile('/bomb.xml.gz')).toBeNull();
    expect(await fetchSiteFile('/to-canary.xml')).toBeNull();
    expect(canary.connections).toBe(0);
  });
});
