import zlib from 'node:zlib';
import { createAddressPolicy } from '../fetch/address-policy';
import { startCanary, startFixtureServer, type FixtureServer } from '@docshelf/testing/targets/fixture-server';
import { ChromiumPageLoader } from './chromium.page-loader';

/** rustdoc's redirect stub for a re-exported item: a 0 s refresh and the same redirect in a script. */
const refreshStub = (target: string) =>
  `<!DOCTYPE html><html><head><meta http-equiv="refresh" content="0;URL=${target}"><title>Redirection</title></head>` +
  `<body><p>Redirecting to <a href="${target}">${target}</a>...</p>` +
  `<script>location.replace(${JSON.stringify(target)} + location.search + location.hash);</script></body></html>`;
const REAL_PAGE =
  '<!DOCTYPE html><html><head><title>Macro real</title></head><body><main><h1>Macro real</h1>' +
  `<p>${'The real documentation of the macro. '.repeat(20)}</p></main></body></html>`;
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
      const html = { 'content-type': 'text/html' };
      if (path === '/stub.html') return response.writeHead(200, html).end(refreshStub('macro.real.html'));
      if (path === '/macro.real.html') return response.writeHead(200, html).end(REAL_PAGE);
      if (path === '/stub-to-stub.html') return response.writeHead(200, html).end(refreshStub('/stub.html'));
      if (path === '/loop.html') return response.writeHead(200, html).end(refreshStub('/loop2.html'));
      if (path === '/loop2.html') return response.writeHead(200, html).end(refreshStub('/loop.html'));
      if (path === '/slow-refresh.html')
        return response
          .writeHead(200, html)
          .end(REAL_PAGE.replace('<head>', '<head><meta http-equiv="refresh" content="30; url=/stub.html">'));
      if (path === '/stub-to-canary.html')
        return response.writeHead(200, html).end(refreshStub(`${canary.origin}/page.html`));
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

describe('ChromiumPageLoader.load over HTTP', () => {
  const load = (path: string, renderer: 'auto' | 'http' = 'auto') => loader.load(`${site.origin}${path}`, { renderer });

  it('follows an immediate meta refresh as a redirect instead of rendering the stub', async () => {
    for (const renderer of ['auto', 'http'] as const) {
      const page = await load('/stub.html', renderer);
      expect(page).toMatchObject({ url: `${site.origin}/macro.real.html`, renderedWith: 'http', title: 'Macro real' });
      expect(page.markdown).toContain('The real documentation of the macro.');
    }
    expect((await load('/stub-to-stub.html')).url).toBe(`${site.origin}/macro.real.html`);
  });

  it('reads a refresh that waits as the page it is, and stops following a refresh loop', async () => {
    expect(await load('/slow-refresh.html')).toMatchObject({
      url: `${site.origin}/slow-refresh.html`,
      title: 'Macro real',
    });
    // Five hops, then the stub itself: in `http` mode its text, never a render.
    expect((await load('/loop.html', 'http')).markdown).toContain('Redirecting to');
  });

  it('refuses a refresh to a blocked address, as it refuses an HTTP redirect there', async () => {
    await expect(load('/stub-to-canary.html')).rejects.toMatchObject({ code: 'URL_BLOCKED' });
    expect(canary.connections).toBe(0);
  });
});
