import zlib from 'node:zlib';
import request from 'supertest';
import { DOCS_SITE, serveFixtures, type FixtureServer } from './support/fixture-server';
import { startHarness, type Harness } from './support/harness';

const CHROME_MARKERS = ['CHROMENAV', 'CHROMESIDEBAR', 'CHROMEFOOTER', 'CHROMECOOKIE', 'CHROMEPREV'];
const wordsOf = (text: string) => text.split(/\s+/).filter(Boolean);

describe('POST /api/crawl on a fixture docs site (real Chromium, real worker)', () => {
  let h: Harness;
  let site: FixtureServer;
  let auth: { Authorization: string };

  beforeAll(async () => {
    h = await startHarness({ PRIVATE_HOST_ALLOWLIST: '127.0.0.1' });
    auth = { Authorization: `Bearer ${await h.createKey('admin')}` };
  });
  beforeEach(async () => {
    site = await serveFixtures({ root: DOCS_SITE });
  });
  afterEach(async () => site.close());
  afterAll(async () => h.close());

  const crawl = (body: object) => request(h.app).post('/api/crawl').set(auth).send(body);
  const chunksOf = (libraryId: string) => h.adapters.libraries.listChunks(libraryId, { offset: 0, limit: 10_000 });

  it('discovers the seed page links, crawls them, and reports what happened', async () => {
    const res = await crawl({
      libraryId: 'fixture/docs',
      name: 'Widgetry',
      urls: [`${site.origin}/index.html`],
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
      errors: [`${site.origin}/missing.html: HTTP 404`],
    });
    expect(site.pagesFetched()).toEqual([
      '/api/reference.html',
      '/guide/configuration.html',
      '/guide/getting-started.html',
      '/index.html',
      '/missing.html',
      '/rendered.html',
    ]);
    // Depth 1 only: a page linked from getting-started is not fetched; robots.txt keeps /private/ out.
    expect(site.requests).not.toContain('/guide/advanced.html');
    expect(site.requests.some((r) => r.startsWith('/private/'))).toBe(false);
    expect(site.requests).toContain('/robots.txt');

    const chunks = await chunksOf('fixture/docs');
    expect(chunks).toHaveLength(res.body.chunksIngested);
    expect(await h.adapters.vectors.count('fixture/docs')).toBe(chunks.length);
    const all = chunks.map((c) => c.content).join('\n');
    for (const marker of CHROME_MARKERS) expect(all).not.toContain(marker);
    expect(all).toContain('SCRIPTRENDERED');
    expect(all).toContain('Widgetry builds dashboards');
    expect(all).toMatch(
      /```python\nfrom widgetry import Gauge\n\ngauge = Gauge\(label="cpu", max=100\)\ngauge.render\(\)\n```/,
    );
    expect(all).toMatch(/\|\s*refreshInterval\s*\|\s*number\s*\|\s*5000\s*\|/);
    for (const chunk of chunks) {
      expect(chunk.url).toMatch(new RegExp(`^${site.origin}/`));
      expect(chunk.title).toEqual(expect.any(String));
      expect(chunk.tokenCount).toBeGreaterThan(0);
    }
    const started = chunks.find((c) => c.content.includes('npm install widgetry'));
    expect(started?.title).toMatch(/Getting started/);
    expect(started?.url).toMatch(/\/guide\/getting-started\.html/);
  });

  it('chunks a long page into ~500-word segments with 50-word overlaps and keeps its code block whole', async () => {
    await crawl({
      libraryId: 'fixture/long',
      name: 'Long',
      urls: [`${site.origin}/api/reference.html`],
      maxDepth: 0,
    }).expect(200);
    expect(site.pagesFetched()).toEqual(['/api/reference.html']);
    const chunks = await chunksOf('fixture/long');
    expect(chunks.length).toBeGreaterThanOrEqual(4);
    for (const chunk of chunks.slice(0, -1)) {
      const n = wordsOf(chunk.content).length;
      expect(n).toBeGreaterThan(350);
      expect(n).toBeLessThan(700);
    }
    for (let i = 1; i < chunks.length; i++) {
      const tail = wordsOf(chunks[i - 1]!.content)
        .slice(-20)
        .join(' ');
      expect(chunks[i]!.content.replace(/\s+/g, ' ')).toContain(tail.replace(/\s+/g, ' '));
    }
    // One chunk holds the whole block; an overlap that repeats its tail re-opens the fence with the language.
    const whole = chunks.filter(
      (c) => c.content.includes('createWidget({ id: 0,') && c.content.includes('createWidget({ id: 39,'),
    );
    expect(whole).toHaveLength(1);
    expect(whole[0]!.content).toMatch(
      /```typescript\nconst widget0 = [\s\S]*const widget39 = createWidget\(\{ id: 39, kind: 'gauge' \}\);\n```/,
    );
    for (const chunk of chunks) {
      expect((chunk.content.match(/```/g) ?? []).length % 2).toBe(0);
      if (chunk.content.includes('createWidget')) expect(chunk.content).toContain('```typescript\n');
    }
  });

  it('re-crawls idempotently: same chunk ids, no duplicates', async () => {
    const body = { libraryId: 'fixture/again', name: 'Again', urls: [`${site.origin}/index.html`], renderer: 'auto' };
    const first = await crawl(body).expect(200);
    const before = (await chunksOf('fixture/again')).map((c) => c.id);
    const second = await crawl(body).expect(200);
    const after = (await chunksOf('fixture/again')).map((c) => c.id);
    expect(second.body.chunksIngested).toBe(first.body.chunksIngested);
    expect(after).toEqual(before);
    expect(new Set(after).size).toBe(after.length);
  });

  it('follows links breadth-first with maxDepth 2 and honours maxPages', async () => {
    const deep = await crawl({
      libraryId: 'fixture/deep',
      name: 'Deep',
      urls: [`${site.origin}/index.html`],
      maxDepth: 2,
      renderer: 'http',
    }).expect(200);
    expect(site.requests).toContain('/guide/advanced.html');
    expect(deep.body.pagesDiscovered).toBe(8);

    const capped = await crawl({
      libraryId: 'fixture/capped',
      name: 'Capped',
      urls: [`${site.origin}/index.html`],
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
      urls: [`${site.origin}/guide/getting-started.html`, `${site.origin}/guide/configuration.html`],
    }).expect(200);
    expect(res.body).toMatchObject({ pagesDiscovered: 2, pagesCrawled: 2, errors: [] });
    expect(site.pagesFetched()).toEqual(['/guide/configuration.html', '/guide/getting-started.html']);
  });

  it('renderer auto extracts the same chunks as the browser, using it only for the script-rendered page', async () => {
    const urls = [
      `${site.origin}/guide/getting-started.html`,
      `${site.origin}/guide/configuration.html`,
      `${site.origin}/rendered.html`,
    ];
    await crawl({ libraryId: 'fixture/browser', name: 'B', urls }).expect(200);
    await crawl({ libraryId: 'fixture/auto', name: 'A', urls, renderer: 'auto' }).expect(200);
    const strip = (chunks: { id: string; content: string; title?: string }[]) =>
      chunks.map(({ id, content, title }) => ({ id, content, title }));
    const browser = strip(await chunksOf('fixture/browser'));
    expect(strip(await chunksOf('fixture/auto'))).toEqual(browser);
    expect(browser.map((c) => c.content).join('\n')).toContain('SCRIPTRENDERED');
  });

  it('lists a page whose text no rule calls content in errors, and keeps the pages that have content', async () => {
    const prose = 'The only prose of this page stands in a form field, which is never content. '.repeat(6);
    const pages: Record<string, string> = {
      '/start': `<html><head><title>Start</title></head><body><main><h1>Start</h1><p>${'Real content here. '.repeat(8)}</p><a href="/field">Field</a></main></body></html>`,
      '/field': `<html><head><title>Field</title></head><body><main><h1>Field</h1><textarea>${prose}</textarea></main></body></html>`,
    };
    const fields = await serveFixtures({
      routes: (req, res) => {
        const html = pages[new URL(req.url ?? '/', 'http://x').pathname];
        if (!html) return false;
        res.writeHead(200, { 'content-type': 'text/html' }).end(html);
        return true;
      },
    });
    try {
      const res = await crawl({
        libraryId: 'fixture/lost',
        name: 'Lost',
        urls: [`${fields.origin}/start`],
        renderer: 'http',
      }).expect(200);
      expect(res.body).toMatchObject({ pagesCrawled: 2 });
      expect(res.body.errors).toEqual([
        expect.stringMatching(
          new RegExp(`^${fields.origin}/field: no content found in a page whose body holds about \\d+ words of text$`),
        ),
      ]);
      expect((await chunksOf('fixture/lost')).map((c) => new URL(c.url!).pathname)).toContain('/start');
    } finally {
      await fields.close();
    }
  });

  it('answers 400 when no content could be extracted, and validates the request', async () => {
    const none = await crawl({ libraryId: 'fixture/none', name: 'None', urls: [`${site.origin}/missing.html`] }).expect(
      400,
    );
    expect(none.body).toMatchObject({ code: 'NO_CONTENT', details: [`${site.origin}/missing.html: HTTP 404`] });
    await request(h.app).get('/api/libraries/fixture/none').expect(404);

    const bad = await crawl({ libraryId: 'x', name: 'X', urls: ['ftp://example.com/'] }).expect(400);
    expect(bad.body.details[0].path).toBe('urls.0');
    await crawl({ libraryId: 'x', name: 'X', urls: [] }).expect(400);
    // A pattern whose matching could take seconds per path is refused before any work starts.
    const slow = await crawl({
      libraryId: 'x',
      name: 'X',
      urls: [`${site.origin}/`],
      includePaths: ['/*a*a*a*b'],
    }).expect(400);
    expect(slow.body.details[0]).toMatchObject({
      path: 'includePaths.0',
      message: expect.stringMatching(/at most 2 '\*' wildcards/),
    });
    const deep = await crawl({
      libraryId: 'x',
      name: 'X',
      urls: [`${site.origin}/`],
      excludePaths: ['/**/a*/**/a*/**/a*/c'],
    }).expect(400);
    expect(deep.body.details[0]).toMatchObject({
      path: 'excludePaths.0',
      message: expect.stringMatching(/at most 2 '\*\*' segments/),
    });
    await request(h.app).get('/api/libraries/x').expect(404);
    await crawl({ name: 'X', urls: [`${site.origin}/`] }).expect(400);
    await request(h.app)
      .post('/api/crawl')
      .send({ libraryId: 'x', name: 'X', urls: [`${site.origin}/`] })
      .expect(401);
    const read = await h.createKey('read');
    await request(h.app)
      .post('/api/crawl')
      .set('Authorization', `Bearer ${read}`)
      .send({ libraryId: 'x', name: 'X', urls: [`${site.origin}/`] })
      .expect(403);
  });
});
