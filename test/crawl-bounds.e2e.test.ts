import { Redis } from 'ioredis';
import request from 'supertest';
import { serveFixtures, type FixtureServer } from '@docshelf/testing/e2e/fixture-site';
import { startHarness, type Harness } from '@docshelf/testing/e2e/harness';
import { startTestRedis, type TestRedis } from '@docshelf/testing/e2e/redis-server';

/**
 * A hostile site: a sitemap index whose sitemaps list 150,000 URLs and one of 5,000 characters, and a seed page of
 * 12,000 links and one of 5,000 characters. The crawl takes what its bounds allow, says what it skipped, and no Redis
 * script holds Redis for the whole list. On a Redis server of its own, so its slow log holds this crawl alone.
 */
const SITEMAPS = 3;
const URLS_PER_SITEMAP = 50_000;
const SEED_LINKS = 12_000;
const LONG_PATH = `/${'x'.repeat(5_000)}`;

describe('a crawl of a site with huge sitemaps and pages of many links', () => {
  let redis: TestRedis;
  let h: Harness;
  let site: FixtureServer;
  let probe: Redis;

  beforeAll(async () => {
    redis = await startTestRedis();
    probe = new Redis(redis.url);
    h = await startHarness(
      { PRIVATE_HOST_ALLOWLIST: '127.0.0.1', CRAWL_HOST_PAGES_PER_SECOND: '0' },
      { redisUrl: redis.url },
    );
    const urlset = (locs: string[]) =>
      `<?xml version="1.0"?><urlset>${locs.map((loc) => `<url><loc>${loc}</loc></url>`).join('')}</urlset>`;
    site = await serveFixtures({
      routes: (req, res) => {
        const path = new URL(req.url ?? '/', 'http://x').pathname;
        const send = (type: string, body: string) => (res.writeHead(200, { 'content-type': type }).end(body), true);
        const sitemap = /^\/sitemap-(\d+)\.xml$/.exec(path);
        if (path === '/sitemap.xml') {
          const children = Array.from({ length: SITEMAPS }, (_, i) => `${site.origin}/sitemap-${i}.xml`);
          return send(
            'application/xml',
            `<sitemapindex>${children.map((loc) => `<sitemap><loc>${loc}</loc></sitemap>`).join('')}</sitemapindex>`,
          );
        }
        if (sitemap) {
          const n = Number(sitemap[1]);
          const locs = Array.from({ length: URLS_PER_SITEMAP }, (_, i) => `${site.origin}/s/${n}/${i}`);
          return send('application/xml', urlset(n === 0 ? [`${site.origin}${LONG_PATH}`, ...locs] : locs));
        }
        if (path === '/') {
          const links = Array.from({ length: SEED_LINKS }, (_, i) => `<li><a href="/l/${i}">Link ${i}</a></li>`);
          return send(
            'text/html',
            `<html><head><title>Seed</title></head><body><main><h1>Seed</h1><p>${'The seed page. '.repeat(10)}</p>` +
              `<a href="${LONG_PATH}">long</a><ul>${links.join('')}</ul></main></body></html>`,
          );
        }
        return send(
          'text/html',
          `<html><head><title>${path}</title></head><body><main><h1>${path}</h1><p>${'A page. '.repeat(10)}</p></main></body></html>`,
        );
      },
    });
  });
  afterAll(async () => {
    await site.close();
    await h.close();
    probe.disconnect();
    await redis.stop();
  });

  it('takes 100,000 sitemap URLs and 10,000 links, skips the over-long ones, and reports both in errors', async () => {
    await probe.config('SET', 'slowlog-log-slower-than', '1000');
    await probe.config('SET', 'slowlog-max-len', '1024');
    await probe.slowlog('RESET');
    const key = await h.createKey('admin');
    const res = await request(h.app)
      .post('/api/crawl')
      .set('Authorization', `Bearer ${key}`)
      .send({
        libraryId: 'hostile/sitemap',
        name: 'Hostile',
        urls: [`${site.origin}/`],
        useSitemap: true,
        maxPages: 20,
        maxDepth: 1,
        renderer: 'http',
      })
      .expect(200);
    expect(res.body).toMatchObject({ success: true, pagesCrawled: 20 });
    // The seed, the first 100,000 sitemap URLs and the first 10,000 of the seed's links.
    expect(res.body.pagesDiscovered).toBe(1 + 100_000 + 10_000);
    expect([...(res.body.errors as string[])].sort()).toEqual(
      [
        `${site.origin}/: 2,000 links beyond the first 10,000 skipped`,
        `${site.origin}/: 1 link over 4,096 characters skipped`,
        `${site.origin}/: 1 sitemap URL over 4,096 characters skipped`,
        `${site.origin}/: 50,000 sitemap URLs beyond the first 100,000 skipped`,
      ].sort(),
    );
    const slow = (await probe.slowlog('GET', 1024)) as Array<[number, number, number, string[]]>;
    const longest = slow.reduce((most, entry) => (entry[2] > most[2] ? entry : most), [0, 0, 0, ['none']]);
    const byCommand = new Map<string, number>();
    for (const [, , micros, [command = '?']] of slow)
      byCommand.set(command, Math.max(byCommand.get(command) ?? 0, micros));
    console.log(
      `longest Redis command during the crawl: ${(longest[2] / 1000).toFixed(1)} ms (${longest[3][0]}); ` +
        `${slow.length} commands over 1 ms, longest by command: ` +
        [...byCommand].map(([command, micros]) => `${command} ${(micros / 1000).toFixed(1)} ms`).join(', '),
    );
  });
});
