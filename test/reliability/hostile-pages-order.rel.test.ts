import request from 'supertest';
import { serveFixtures, type FixtureServer } from '@docshelf/testing/e2e/fixture-site';
import { makeChunks, startHarness, type Harness } from '@docshelf/testing/e2e/harness';
import { startTestRedis, type TestRedis } from '@docshelf/testing/e2e/redis-server';

const NESTED = 100_000;
const EMPTY_LINKS = 100_000;
const html = (title: string, body: string) =>
  `<!DOCTYPE html><html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${'Text of the page. '.repeat(10)}</p>${body}</main></body></html>`;

/**
 * A hostile page must not hold up a worker's other work: an ordinary ingest sent once the page has been served ends
 * before the crawl of that page does, and the crawl succeeds. The API and worker run in this process (one event loop,
 * as one worker process holds its jobs), on a redis-server of their own. No timing is asserted, only the order of the
 * two ends. What the order cannot tell: one long block of the event loop holds the ingest and the crawl alike, and the
 * crawl still has its commit to do after it. Extraction on the event loop, as it was before pages over 256 KB went to a
 * thread, kept this order too: there the nested page's crawl failed (400, its parse overflowed the stack) and the empty
 * links' crawl passed.
 */
describe('an ordinary ingest beside a hostile crawl (API + worker + Redis + SQLite)', () => {
  let redis: TestRedis;
  let h: Harness;
  let site: FixtureServer;
  let admin: { Authorization: string };
  /** Resolvers of the pages whose serving a test waits for, by path. */
  const onServed = new Map<string, () => void>();

  beforeAll(async () => {
    redis = await startTestRedis();
    // The synchronous answers wait for their jobs to end, however long a hostile page holds its crawl.
    h = await startHarness(
      { PRIVATE_HOST_ALLOWLIST: '127.0.0.1', CRAWL_HOST_PAGES_PER_SECOND: '0', JOB_WAIT_TIMEOUT_MS: '600000' },
      { redisUrl: redis.url },
    );
    admin = { Authorization: `Bearer ${await h.createKey('admin')}` };
    // Built once, before any crawl.
    const built = new Map<string, Buffer>([
      ['/nested', Buffer.from(html('Nested', `${'<div>'.repeat(NESTED)}NESTEDTEXT${'</div>'.repeat(NESTED)}`))],
      ['/empty-links', Buffer.from(html('Empty links', '<a href="/x"></a>'.repeat(EMPTY_LINKS)))],
      ['/ok', Buffer.from(html('Ordinary', '<p>ORDINARYPAGE</p>'))],
    ]);
    site = await serveFixtures({
      routes: (req, res) => {
        const path = new URL(req.url ?? '/', 'http://x').pathname;
        const body = built.get(path);
        if (!body) return false;
        res.on('finish', () => onServed.get(path)?.());
        res.writeHead(200, { 'content-type': 'text/html' }).end(body);
        return true;
      },
    });
    // What a process's first crawl and first ingest load (the token counter's tables) is not a hostile page's doing.
    await request(h.app)
      .post('/api/crawl')
      .set(admin)
      .send({ libraryId: 'order/warm-up', name: 'Warm-up', renderer: 'http', urls: [`${site.origin}/ok`] })
      .expect(200);
    await ingestOne('order/warm-up-ingest');
  }, 120_000);
  afterAll(async () => {
    await site.close();
    await h.close();
    await redis.stop();
  });

  const ingestOne = (libraryId: string) =>
    request(h.app)
      .post('/api/ingest')
      .set(admin)
      .send({ libraryId, name: 'Ordinary', chunks: makeChunks(1) });

  /** Crawls `path`; once the page is served, ingests one chunk. Returns which ended first, and both answers. */
  const raceIngestWithCrawl = async (path: string, libraryId: string) => {
    const served = new Promise<void>((resolve) => onServed.set(path, resolve));
    const order: string[] = [];
    const crawl = request(h.app)
      .post('/api/crawl')
      .set(admin)
      .send({ libraryId, name: 'Hostile', renderer: 'http', urls: [`${site.origin}${path}`], maxPages: 1 })
      .then((res) => (order.push('hostile crawl'), res));
    await served;
    const ingest = ingestOne(`${libraryId}-ordinary`).then((res) => (order.push('ordinary ingest'), res));
    const [crawled, ingested] = await Promise.all([crawl, ingest]);
    console.log(`${path}: ${order.join(' ended before ')}; crawl answered ${crawled.status}`);
    return { order, crawled, ingested };
  };

  it(`ends an ordinary ingest before the crawl of a page of ${NESTED.toLocaleString('en')} nested elements`, async () => {
    const { order, crawled, ingested } = await raceIngestWithCrawl('/nested', 'order/nested');
    expect(ingested.status).toBe(200);
    expect(crawled.status).toBe(200);
    expect(order).toEqual(['ordinary ingest', 'hostile crawl']);
  }, 600_000);

  it(`ends an ordinary ingest before the crawl of a page of ${EMPTY_LINKS.toLocaleString('en')} empty links`, async () => {
    const { order, crawled, ingested } = await raceIngestWithCrawl('/empty-links', 'order/empty-links');
    expect(ingested.status).toBe(200);
    expect(crawled.status).toBe(200);
    expect(order).toEqual(['ordinary ingest', 'hostile crawl']);
  }, 600_000);
});
