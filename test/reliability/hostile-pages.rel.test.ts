import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import request from 'supertest';
import { serveFixtures, type FixtureServer } from '@docshelf/testing/e2e/fixture-site';
import { startHarness, type Harness } from '@docshelf/testing/e2e/harness';
import { startTestRedis, type TestRedis } from '@docshelf/testing/e2e/redis-server';
import { recordFigure } from '@docshelf/testing/reliability/figures';

const NESTED = 100_000;
const EMPTY_LINKS = 100_000;
/** The issue's own empty-links page: 9.5 MB, which took 23 minutes of a worker's event loop when removing was quadratic. */
const MANY_EMPTY_LINKS = 600_000;
const RENDERED_EMPTY_LINKS = 80_000;
const SITEMAP_URLS = 150_000;
const MANY_LINKS = 600_000;
const SHORT_SECTIONS = 300_000;
/** The many-links page's links: four base-36 digits each, relative, so 600,000 of them fill 9.7 MB. */
const manyLinkId = (i: number) => i.toString(36).padStart(4, '0');
const html = (title: string, body: string) =>
  `<!DOCTYPE html><html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${'Text of the page. '.repeat(10)}</p>${body}</main></body></html>`;

/**
 * Pages and sitemaps built to stall a worker or freeze Redis, crawled by the running service (API and worker in this
 * process, on a redis-server of its own so its slow log holds these crawls alone). Each crawl must end with the page's
 * content; the run prints the longest event-loop block of the process and the longest Redis command of each.
 */
describe('hostile pages and sitemaps (API + worker + Redis + SQLite)', () => {
  let redis: TestRedis;
  let probe: Redis;
  let h: Harness;
  let site: FixtureServer;
  let admin: { Authorization: string };
  const rows: string[] = [];

  beforeAll(async () => {
    redis = await startTestRedis();
    probe = new Redis(redis.url);
    await probe.config('SET', 'slowlog-log-slower-than', '1000');
    await probe.config('SET', 'slowlog-max-len', '1024');
    h = await startHarness(
      { PRIVATE_HOST_ALLOWLIST: '127.0.0.1', CRAWL_HOST_PAGES_PER_SECOND: '0' },
      { redisUrl: redis.url },
    );
    admin = { Authorization: `Bearer ${await h.createKey('admin')}` };
    // The large bodies are built (and encoded) once, before any crawl: built per request, they held the event loop
    // being measured.
    const built = new Map<string, [type: string, body: Buffer]>();
    site = await serveFixtures({
      routes: (req, res) => {
        const path = new URL(req.url ?? '/', 'http://x').pathname;
        const send = (type: string, body: string | Buffer) => (
          res.writeHead(200, { 'content-type': type }).end(body),
          true
        );
        const page = built.get(path);
        if (page) return send(...page);
        if (path === '/many/')
          return send(
            'text/html',
            html('Many', ['links', '0001', '0002', '0003', '0004'].map((to) => `<a href=${to}>${to}</a>`).join('')),
          );
        if (/^\/(many|empty)\/[0-9a-z]{4}$/.test(path)) return send('text/html', html('Linked', '<p>LINKEDPAGE</p>'));
        if (path === '/empty/')
          return send(
            'text/html',
            html('Empty', ['links', '0001', '0002'].map((to) => `<a href=${to}>${to}</a>`).join('')),
          );
        if (path === '/long-link')
          return send('text/html', html('Long link', `<a href="/${'y'.repeat(5_000)}">long</a><a href="/ok">ok</a>`));
        if (path === '/ok' || path.startsWith('/s/')) return send('text/html', html('Ordinary', '<p>ORDINARYPAGE</p>'));
        return false;
      },
    });
    built.set('/nested', [
      'text/html',
      Buffer.from(html('Nested', `${'<div>'.repeat(NESTED)}NESTEDTEXT${'</div>'.repeat(NESTED)}`)),
    ]);
    built.set('/empty-links', ['text/html', Buffer.from(html('Empty links', '<a href="/x"></a>'.repeat(EMPTY_LINKS)))]);
    built.set('/empty/links', [
      'text/html',
      Buffer.from(html('Many empty links', '<a href="/x"></a>'.repeat(MANY_EMPTY_LINKS))),
    ]);
    built.set('/rendered-empty-links', [
      'text/html',
      Buffer.from(html('Rendered empty links', '<a href="/x"></a>'.repeat(RENDERED_EMPTY_LINKS))),
    ]);
    // Markdown, taken as the page's content as it is: chunking is what this page stresses.
    built.set('/short-sections.md', [
      'text/markdown',
      Buffer.from(
        `# Short sections\n\n${Array.from({ length: SHORT_SECTIONS }, (_, i) => `## Part ${i}\n\nw${i}`).join('\n\n')}`,
      ),
    ]);
    built.set('/many/links', [
      'text/html',
      Buffer.from(
        html('Many links', Array.from({ length: MANY_LINKS }, (_, i) => `<a href=${manyLinkId(i)}></a>`).join('')),
      ),
    ]);
    built.set('/sitemap.xml', [
      'application/xml',
      Buffer.from(
        `<urlset>${Array.from({ length: SITEMAP_URLS }, (_, i) => `<url><loc>${site.origin}/s/${i}</loc></url>`).join('')}</urlset>`,
      ),
    ]);
  });
  beforeAll(async () => {
    // A process's first crawl loads what every crawl shares (the token counter's tables): not a hostile page's doing.
    await request(h.app)
      .post('/api/crawl')
      .set(admin)
      .send({ libraryId: 'hostile/warm-up', name: 'Warm-up', renderer: 'http', urls: [`${site.origin}/ok`] })
      .expect(200);
  });
  afterAll(async () => {
    console.log(
      [
        'hostile input                         | crawl | longest event-loop block | longest Redis command',
        ...rows,
      ].join('\n'),
    );
    await site.close();
    await h.close();
    probe.disconnect();
    await redis.stop();
  });

  const crawlMeasured = async (name: string, body: object) => {
    await probe.slowlog('RESET');
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const res = await request(h.app)
      .post('/api/crawl')
      .set(admin)
      .send({ name, renderer: 'http', ...body });
    loop.disable();
    const slow = (await probe.slowlog('GET', 1024)) as Array<[number, number, number, string[]]>;
    const redisMs = Math.max(0, ...slow.map((entry) => entry[2])) / 1000;
    const loopMs = loop.max / 1e6;
    rows.push(
      `${name.padEnd(37)} | ${res.status}   | ${loopMs.toFixed(0).padStart(8)} ms              | ${redisMs.toFixed(1)} ms`,
    );
    recordFigure({
      scenario: `hostile: ${name}`,
      requests: 1,
      faults: 1,
      serverErrors: res.status >= 500 ? 1 : 0,
      rowsLost: 0,
      duplicates: 0,
      note: `longest event-loop block ${loopMs.toFixed(0)} ms, longest Redis command ${redisMs.toFixed(1)} ms`,
    });
    return res;
  };

  it(`extracts a page of ${NESTED.toLocaleString('en')} nested elements`, async () => {
    const res = await crawlMeasured('100,000 nested <div>s (1.1 MB)', {
      libraryId: 'hostile/nested',
      urls: [`${site.origin}/nested`],
    });
    expect(res.status).toBe(200);
    const chunks = await h.adapters.libraries.listChunks('hostile/nested', { offset: 0, limit: 10 });
    expect(chunks.map((chunk) => chunk.content).join('\n')).toContain('NESTEDTEXT');
  });

  it(`extracts a page of ${EMPTY_LINKS.toLocaleString('en')} empty links`, async () => {
    const res = await crawlMeasured('100,000 empty links (1.7 MB)', {
      libraryId: 'hostile/empty',
      urls: [`${site.origin}/empty-links`],
    });
    expect(res.status).toBe(200);
    expect(res.body.pagesCrawled).toBe(1);
  });

  it(`crawls on past a page of ${MANY_EMPTY_LINKS.toLocaleString('en')} empty links`, async () => {
    const res = await crawlMeasured('600,000 empty links (9.5 MB)', {
      libraryId: 'hostile/many-empty',
      urls: [`${site.origin}/empty/`],
      maxDepth: 1,
    });
    expect(res.status).toBe(200);
    // Extracted in its thread, or, on a machine too busy to do it within the page's time limit, failed alone: either
    // way the crawl ends with the seed's other pages (when empty links were removed one by one, it ran for minutes).
    const timedOut = `${site.origin}/empty/links: extracting ${site.origin}/empty/links took longer than`;
    const failed = res.body.errors?.length === 1 && String(res.body.errors[0]).startsWith(timedOut);
    if (!failed) expect(res.body.errors ?? []).toEqual([]);
    expect(res.body.pagesCrawled).toBe(failed ? 3 : 4);
    console.log(`600,000 empty links: ${failed ? res.body.errors[0] : 'extracted'}`);
  }, 300_000);

  it(`renders and extracts a page of ${RENDERED_EMPTY_LINKS.toLocaleString('en')} empty links in Chromium`, async () => {
    const res = await crawlMeasured('80,000 empty links, browser (1.3 MB)', {
      libraryId: 'hostile/rendered-empty',
      renderer: 'browser',
      urls: [`${site.origin}/rendered-empty-links`],
      maxPages: 1,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ pagesCrawled: 1, errors: [] });
  });

  it(`extracts the same page with the renderer chosen per page (auto)`, async () => {
    const res = await crawlMeasured('80,000 empty links, auto (1.3 MB)', {
      libraryId: 'hostile/auto-empty',
      renderer: 'auto',
      urls: [`${site.origin}/rendered-empty-links`],
      maxPages: 1,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ pagesCrawled: 1, errors: [] });
  });

  it('skips an over-long link and crawls on', async () => {
    const res = await crawlMeasured('one link of 5,000 characters', {
      libraryId: 'hostile/long',
      urls: [`${site.origin}/long-link`],
      maxPages: 5,
    });
    expect(res.body).toMatchObject({
      pagesCrawled: 2,
      errors: [`${site.origin}/long-link: 1 link over 4,096 characters skipped`],
    });
  });

  it(`crawls on past a page of ${MANY_LINKS.toLocaleString('en')} links`, async () => {
    const res = await crawlMeasured('600,000 links (9.7 MB)', {
      libraryId: 'hostile/many-links',
      urls: [`${site.origin}/many/`],
      maxDepth: 2,
      maxPages: 6,
    });
    expect(res.status).toBe(200);
    // The page is cut to its first 10,000 links or, on a machine too busy to extract it within the page's time
    // limit, fails alone: either way the crawl goes on to the seed's other four pages and its errors name the page.
    const cut = `${site.origin}/many/links: 590,000 links beyond the first 10,000 skipped`;
    const timedOut = `${site.origin}/many/links: extracting ${site.origin}/many/links took longer than`;
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0] === cut || res.body.errors[0].startsWith(timedOut)).toBe(true);
    expect(res.body.pagesCrawled).toBe(res.body.errors[0] === cut ? 6 : 5);
    console.log(`600,000 links: ${res.body.errors[0]}`);
    const chunks = await h.adapters.libraries.listChunks('hostile/many-links', { offset: 0, limit: 100 });
    expect(chunks.map((chunk) => chunk.title)).toEqual(expect.arrayContaining(['Many', 'Linked']));
  });

  it(`chunks a Markdown page of ${SHORT_SECTIONS.toLocaleString('en')} short sections`, async () => {
    const res = await crawlMeasured('300,000 short sections (7.3 MB)', {
      libraryId: 'hostile/short-sections',
      urls: [`${site.origin}/short-sections.md`],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ pagesCrawled: 1, errors: [] });
    const chunks = await h.adapters.libraries.listChunks('hostile/short-sections', { offset: 0, limit: 5_000 });
    expect(chunks.map((chunk) => chunk.content).join('\n')).toContain(`w${SHORT_SECTIONS - 1}`);
  }, 120_000);

  it(`admits a sitemap of ${SITEMAP_URLS.toLocaleString('en')} URLs in bounded Redis calls`, async () => {
    const res = await crawlMeasured('sitemap of 150,000 URLs (6 MB)', {
      libraryId: 'hostile/sitemap',
      urls: [`${site.origin}/ok`],
      useSitemap: true,
      maxPages: 10,
      maxDepth: 1,
    });
    expect(res.body).toMatchObject({ pagesCrawled: 10, pagesDiscovered: 1 + 100_000 });
    expect(res.body.errors).toContain(`${site.origin}/ok: 50,000 sitemap URLs beyond the first 100,000 skipped`);
  });
});
