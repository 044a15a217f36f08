import request from 'supertest';
import { serveFixtures, type FixtureServer } from '@docshelf/testing/e2e/fixture-site';
import { startHarness, type Harness } from '@docshelf/testing/e2e/harness';

/**
 * Every fetch of a user-supplied URL is checked after DNS resolution. Only 127.0.0.1 is allow-listed here; the canary
 * listens on 127.0.0.2, a private address, and must never be hit. (Non-loopback private ranges are covered by the
 * address policy's unit tests, which never connect.)
 */
describe('SSRF: crawls refuse private targets on every hop', () => {
  let h: Harness;
  let canary: FixtureServer;
  let site: FixtureServer;
  let auth: { Authorization: string };

  beforeAll(async () => {
    h = await startHarness({ PRIVATE_HOST_ALLOWLIST: '127.0.0.1' });
    auth = { Authorization: `Bearer ${await h.createKey('admin')}` };
    canary = await serveFixtures({
      host: '127.0.0.2',
      routes: (_req, res) => {
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end('<html><body><main><p>canary secret</p></main></body></html>');
        return true;
      },
    });
    const canaryPort = new URL(canary.origin).port;
    site = await serveFixtures({
      routes: (req, res) => {
        if (req.url?.startsWith('/redirect')) {
          res.writeHead(302, { location: `${canary.origin}/latest/meta-data/` }).end();
          return true;
        }
        if (req.url === '/subresources') {
          res.writeHead(200, { 'content-type': 'text/html' }).end(`<!DOCTYPE html><html><head><title>Sub</title>
            <script src="${canary.origin}/evil.js"></script><link rel="stylesheet" href="http://[::ffff:127.0.0.2]:${canaryPort}/s.css"></head>
            <body><main><h1>Subresources</h1><p>Public page body SUBRESOURCEPAGE.</p>
            <img src="${canary.origin}/pixel.png"><iframe src="${canary.origin}/frame"></iframe>
            <script>fetch('${canary.origin}/xhr').catch(() => {}); new Image().src = 'http://2130706434:${canaryPort}/decimal';</script>
            </main></body></html>`);
          return true;
        }
        return false;
      },
    });
  });
  afterAll(async () => {
    await Promise.all([site.close(), canary.close()]);
    await h.close();
  });

  const crawl = (urls: string[], renderer = 'browser') =>
    request(h.app).post('/api/crawl').set(auth).send({ libraryId: 'ssrf', name: 'SSRF', urls, renderer });

  it.each([
    ['a private IPv4 address', () => `${canary.origin}/`],
    ['its decimal form', () => `http://2130706434:${new URL(canary.origin).port}/`],
    ['its hex form', () => `http://0x7f000002:${new URL(canary.origin).port}/`],
    ['its IPv4-mapped IPv6 form', () => `http://[::ffff:127.0.0.2]:${new URL(canary.origin).port}/`],
    ['IPv6 loopback', () => `http://[::1]:${new URL(canary.origin).port}/`],
  ])('refuses %s, in the browser and over plain HTTP', async (_label, url) => {
    for (const renderer of ['browser', 'http']) {
      const res = await crawl([url(), `${url()}again`], renderer).expect(400);
      expect(res.body.code).toBe('NO_CONTENT');
      expect(res.body.details).toHaveLength(2);
      for (const detail of res.body.details) expect(detail).toMatch(/: Blocked .*(loopback|private)/i);
    }
    expect(canary.requests).toEqual([]);
    expect(canary.connections()).toBe(0);
  });

  it('refuses a redirect from an allowed site to a private address', async () => {
    for (const renderer of ['browser', 'http']) {
      const res = await crawl([`${site.origin}/redirect`, `${site.origin}/redirect?again`], renderer).expect(400);
      for (const detail of res.body.details) expect(detail).toMatch(/Blocked/);
    }
    expect(site.requests.filter((r) => r.startsWith('/redirect')).length).toBeGreaterThanOrEqual(2);
    expect(canary.requests).toEqual([]);
    expect(canary.connections()).toBe(0);
  });

  it('crawls a public page while refusing every subresource it points at a private address', async () => {
    const res = await crawl([`${site.origin}/subresources`, `${site.origin}/missing`]).expect(200);
    expect(res.body.pagesCrawled).toBe(1);
    const chunks = await h.adapters.libraries.listChunks('ssrf', { offset: 0, limit: 100 });
    expect(chunks.map((c) => c.content).join('\n')).toContain('SUBRESOURCEPAGE');
    expect(canary.requests).toEqual([]);
    expect(canary.connections()).toBe(0);
  });
});
