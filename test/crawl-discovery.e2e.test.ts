import zlib from 'node:zlib';
import { describeDocsSiteCrawl } from '@docshelf/testing/e2e/docs-site-crawl';
import { DOCS_SITE, serveFixtures } from '@docshelf/testing/e2e/fixture-site';

const CHROME_MARKERS = ['CHROMENAV', 'CHROMESIDEBAR', 'CHROMEFOOTER', 'CHROMECOOKIE', 'CHROMEPREV'];

describeDocsSiteCrawl('the pages it finds and fetches (links, depth, sitemaps, redirects)', (suite) => {
  const { crawl, chunksOf } = suite;

  it('discovers the seed page links, crawls them, and reports what happened', async () => {
    const res = await crawl({
      libraryId: 'fixture/docs',
      name: 'Widgetry',
      urls: [`${suite.site.origin}/index.html`],
    }).expect(200);

    expect(res.body).toEqual({
      success: true,
      libraryId: 'fixture/docs',
      // index + getting-started + configuration + reference + rendered + missing + private/secret
      pagesDiscovered: 7,
      pagesCrawled: 5,
      // HTTP first by default: only /rendered.html, a script shell, is loaded in Chromium.
      pagesRendered: 1,
      pagesUnchanged: 0,
      chunksIngested: expect.any(Number),
      vectorized: true,
      errors: [`${suite.site.origin}/missing.html: HTTP 404`],
    });
    expect(suite.site.pagesFetched()).toEqual([
      '/api/reference.html',
      '/guide/configuration.html',
      '/guide/getting-started.html',
      '/index.html',
      '/missing.html',
      '/rendered.html',
    ]);
    // Depth 1 only: a page linked from getting-started is not fetched; robots.txt keeps /private/ out.
    expect(suite.site.requests).not.toContain('/guide/advanced.html');
    expect(suite.site.requests.some((r) => r.startsWith('/private/'))).toBe(false);
    expect(suite.site.requests).toContain('/robots.txt');

    const chunks = await chunksOf('fixture/docs');
    expect(chunks).toHaveLength(res.body.chunksIngested);
    expect(await suite.h.adapters.vectors.count('fixture/docs')).toBe(chunks.length);
    const all = chunks.map((c) => c.content).join('\n');
    for (const marker of CHROME_MARKERS) expect(all).not.toContain(marker);
    expect(all).toContain('SCRIPTRENDERED');
    expect(all).toContain('Widgetry builds dashboards');
    expect(all).toMatch(
      /```python\nfrom widgetry import Gauge\n\ngauge = Gauge\(label="cpu", max=100\)\ngauge.render\(\)\n```/,
    );
    expect(all).toMatch(/\|\s*refreshInterval\s*\|\s*number\s*\|\s*5000\s*\|/);
    for (const chunk of chunks) {
      expect(chunk.url).toMatch(new RegExp(`^${suite.site.origin}/`));
      expect(chunk.title).toEqual(expect.any(String));
      expect(chunk.tokenCount).toBeGreaterThan(0);
    }
    const started = chunks.find((c) => c.content.includes('npm install widgetry'));
    expect(started?.title).toMatch(/Getting started/);
    expect(started?.url).toMatch(/\/guide\/getting-started\.html/);
  });

  it('follows links breadth-first with maxDepth 2 and honours maxPages', async () => {
    const deep = await crawl({
      libraryId: 'fixture/deep',
      name: 'Deep',
      urls: [`${suite.site.origin}/index.html`],
      maxDepth: 2,
      renderer: 'http',
    }).expect(200);
    expect(suite.site.requests).toContain('/guide/advanced.html');
    expect(deep.body.pagesDiscovered).toBe(8);

    const capped = await crawl({
      libraryId: 'fixture/capped',
      name: 'Capped',
      urls: [`${suite.site.origin}/index.html`],
      maxPages: 3,
      renderer: 'http',
    }).expect(200);
    expect(capped.body.pagesCrawled).toBe(3);
  });

  it('crawls the pages a page links to as soon as that page is done, not after the rest of its level', async () => {
    const events: string[] = [];
    let releaseSlow: () => void = () => undefined;
    const fastChildAsked = new Promise<void>((resolve) => (releaseSlow = resolve));
    let giveUp: NodeJS.Timeout | undefined;
    const page = (title: string, links: string[]) =>
      `<html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>The text of ${title}, long enough to keep.</p>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</main></body></html>`;
    const fanning = await serveFixtures({
      routes: (req, res) => {
        const path = new URL(req.url ?? '/', 'http://x').pathname;
        const pages: Record<string, string[]> = {
          '/start': ['/slow', '/fast'],
          '/slow': [],
          '/fast': ['/fast/child'],
          '/fast/child': [],
        };
        if (!(path in pages)) return false;
        events.push(`asked ${path}`);
        if (path === '/fast/child') releaseSlow();
        const answer = () => {
          events.push(`answered ${path}`);
          res.writeHead(200, { 'content-type': 'text/html' }).end(page(path, pages[path]!));
        };
        // The slow page answers once the fast page's own link was asked for, or after 10 s if the crawl waits for it.
        if (path === '/slow')
          void Promise.race([fastChildAsked, new Promise((r) => (giveUp = setTimeout(r, 10_000)))]).then(answer);
        else answer();
        return true;
      },
    });
    try {
      const res = await crawl({
        libraryId: 'fixture/fan-out',
        name: 'Fan-out',
        urls: [`${fanning.origin}/start`],
        maxDepth: 2,
        renderer: 'http',
      }).expect(200);
      expect(res.body).toMatchObject({ pagesDiscovered: 4, pagesCrawled: 4, errors: [] });
      expect(events.indexOf('asked /fast/child')).toBeGreaterThan(-1);
      expect(events.indexOf('asked /fast/child')).toBeLessThan(events.indexOf('answered /slow'));
      // The library's chunks still come in breadth-first order, whatever order the pages finished in.
      expect((await chunksOf('fixture/fan-out')).map((c) => new URL(c.url!).pathname)).toEqual([
        '/start',
        '/slow',
        '/fast',
        '/fast/child',
      ]);
    } finally {
      clearTimeout(giveUp);
      await fanning.close();
    }
  });

  it('seeds discovery from sitemap.xml when asked, and keeps to includePaths', async () => {
    const mapped = await serveFixtures({
      root: DOCS_SITE,
      routes: (req, res) => {
        if (req.url !== '/sitemap.xml') return false;
        const origin = `http://${req.headers.host}`;
        res
          .writeHead(200, { 'content-type': 'application/xml' })
          .end(
            `<?xml version="1.0"?><urlset><url><loc>${origin}/guide/advanced.html</loc></url><url><loc>${origin}/api/reference.html</loc></url></urlset>`,
          );
        return true;
      },
    });
    try {
      const res = await crawl({
        libraryId: 'fixture/sitemap',
        name: 'Sitemap',
        urls: [`${mapped.origin}/index.html`],
        useSitemap: true,
        includePaths: ['/guide/**'],
        renderer: 'http',
      }).expect(200);
      expect(mapped.pagesFetched()).toEqual([
        '/guide/advanced.html',
        '/guide/configuration.html',
        '/guide/getting-started.html',
        '/index.html',
      ]);
      expect(res.body).toMatchObject({ pagesDiscovered: 4, pagesCrawled: 4, errors: [] });
    } finally {
      await mapped.close();
    }
  });

  it('follows a sitemap index to a gzipped sitemap', async () => {
    const indexed = await serveFixtures({
      root: DOCS_SITE,
      routes: (req, res) => {
        const origin = `http://${req.headers.host}`;
        if (req.url === '/sitemap.xml') {
          res
            .writeHead(200, { 'content-type': 'application/xml' })
            .end(
              `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
                `<sitemap><loc>${origin}/sitemaps/guide.xml.gz</loc></sitemap><sitemap><loc>${origin}/sitemaps/gone.xml.gz</loc></sitemap>` +
                `</sitemapindex>`,
            );
          return true;
        }
        if (req.url === '/sitemaps/guide.xml.gz') {
          // A .gz file as such, not a content-encoding the HTTP layer undoes.
          const urlset = `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${origin}/guide/advanced.html</loc></url></urlset>`;
          res.writeHead(200, { 'content-type': 'application/x-gzip' }).end(zlib.gzipSync(urlset));
          return true;
        }
        return false;
      },
    });
    try {
      const res = await crawl({
        libraryId: 'fixture/sitemap-index',
        name: 'Sitemap index',
        urls: [`${indexed.origin}/index.html`],
        useSitemap: true,
        includePaths: ['/guide/**'],
        renderer: 'http',
      }).expect(200);
      expect(indexed.requests).toEqual(
        expect.arrayContaining(['/sitemap.xml', '/sitemaps/guide.xml.gz', '/sitemaps/gone.xml.gz']),
      );
      // advanced.html is linked only two levels down: the gzipped sitemap is how the crawl found it.
      expect(indexed.pagesFetched()).toEqual([
        '/guide/advanced.html',
        '/guide/configuration.html',
        '/guide/getting-started.html',
        '/index.html',
      ]);
      expect(res.body).toMatchObject({ pagesDiscovered: 4, pagesCrawled: 4, errors: [] });
      const pageUrls = (await chunksOf('fixture/sitemap-index')).map((c) => c.url);
      expect(pageUrls).toContain(`${indexed.origin}/guide/advanced.html`);
    } finally {
      await indexed.close();
    }
  });

  it('follows a redirecting seed and does not fetch its target twice', async () => {
    const redirecting = await serveFixtures({
      root: DOCS_SITE,
      routes: (req, res) => {
        if (req.url !== '/start') return false;
        res.writeHead(302, { location: '/index.html' }).end();
        return true;
      },
    });
    try {
      const res = await crawl({
        libraryId: 'fixture/redirect',
        name: 'Redirect',
        urls: [`${redirecting.origin}/start`],
        renderer: 'http',
      }).expect(200);
      expect(res.body).toMatchObject({ pagesCrawled: 5, errors: [`${redirecting.origin}/missing.html: HTTP 404`] });
      expect(redirecting.requests.filter((r) => r === '/index.html')).toHaveLength(1);
    } finally {
      await redirecting.close();
    }
  });

  it('crawls exactly the given URLs without discovery when several are given', async () => {
    const res = await crawl({
      libraryId: 'fixture/multi',
      name: 'Multi',
      urls: [`${suite.site.origin}/guide/getting-started.html`, `${suite.site.origin}/guide/configuration.html`],
    }).expect(200);
    expect(res.body).toMatchObject({ pagesDiscovered: 2, pagesCrawled: 2, errors: [] });
    expect(suite.site.pagesFetched()).toEqual(['/guide/configuration.html', '/guide/getting-started.html']);
  });
});
