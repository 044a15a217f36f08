import request from 'supertest';
import { generateDocsSite } from './fixtures/generated-docs-site';
import { serveFixtures, type FixtureServer } from './support/fixture-server';
import { startHarness, type Harness } from './support/harness';

describe('crawl size: CRAWL_MAX_PAGES, and 150 pages unless a crawl asks for more', () => {
  const SITE = generateDocsSite({ pages: 320 });
  let h: Harness;
  let site: FixtureServer;
  let auth: { Authorization: string };

  beforeAll(async () => {
    h = await startHarness({
      PRIVATE_HOST_ALLOWLIST: '127.0.0.1',
      CRAWL_MAX_PAGES: '300',
      CRAWL_HOST_PAGES_PER_SECOND: '0',
      WORKER_CONCURRENCY_CRAWL: '8',
    });
    auth = { Authorization: `Bearer ${await h.createKey('admin')}` };
    site = await serveFixtures({ routes: SITE.route });
  });
  afterAll(async () => {
    await site.close();
    await h.close();
  });

  const crawl = (body: object) =>
    request(h.app)
      .post('/api/crawl')
      .set(auth)
      .send({ name: 'Widgetry', urls: [`${site.origin}${SITE.indexPath}`], ...body });

  it('refuses maxPages or a list of URLs above the limit with 400 TOO_MANY_PAGES, writing nothing', async () => {
    const overMax = await crawl({ libraryId: 'cap/max', maxPages: 301 }).expect(400);
    expect(overMax.body).toMatchObject({
      code: 'TOO_MANY_PAGES',
      details: [{ path: 'maxPages', value: 301, limit: 300 }],
    });
    expect(overMax.body.error).toContain('CRAWL_MAX_PAGES');
    const urls = SITE.paths.slice(0, 301).map((p) => `${site.origin}${p}`);
    const overUrls = await crawl({ libraryId: 'cap/urls', urls }).expect(400);
    expect(overUrls.body).toMatchObject({
      code: 'TOO_MANY_PAGES',
      details: [{ path: 'urls', count: 301, limit: 300 }],
    });
    expect(site.requests).toEqual([]);
    expect(await h.adapters.records.getLibrary('cap/max')).toBeNull();
    expect(await h.adapters.records.getLibrary('cap/urls')).toBeNull();
    expect((await h.jobs.allQueues()[0]!.getJobCounts()).waiting ?? 0).toBe(0);
  });

  it('stops a single-URL crawl at 150 pages without maxPages, and takes up to the limit when asked', async () => {
    const plain = await crawl({ libraryId: 'cap/default' }).expect(200);
    expect(plain.body).toMatchObject({ pagesDiscovered: 320, pagesCrawled: 150, pagesRendered: 0, errors: [] });

    const asked = await crawl({ libraryId: 'cap/asked', maxPages: 300 }).expect(200);
    expect(asked.body).toMatchObject({ pagesDiscovered: 320, pagesCrawled: 300, pagesRendered: 0, errors: [] });
    // One chunk a topic page, a few for the index's long list of links.
    expect(await h.adapters.records.countChunks('cap/asked')).toBe(asked.body.chunksIngested);
    expect(asked.body.chunksIngested).toBeGreaterThan(300);

    const listed = SITE.paths.slice(0, 300).map((p) => `${site.origin}${p}`);
    const several = await crawl({ libraryId: 'cap/listed', urls: listed }).expect(200);
    expect(several.body).toMatchObject({ pagesCrawled: 300, errors: [] });
  }, 120_000);
});
