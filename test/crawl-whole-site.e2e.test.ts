import { Job, Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import request from 'supertest';
import { generateDocsSite, topicKeyword } from './fixtures/generated-docs-site';
import { serveFixtures, type FixtureServer } from '@docshelf/testing/e2e/fixture-site';
import { REDIS_URL, startHarness, type Harness } from '@docshelf/testing/e2e/harness';
import { signalAndWait, spawnWorker, stopQuietly, type WorkerProcess } from '@docshelf/testing/e2e/ops-processes';
import { openEventStream, type SseEvent } from '@docshelf/testing/e2e/sse';

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
    expect(await h.adapters.libraries.getLibrary('cap/max')).toBeNull();
    expect(await h.adapters.libraries.getLibrary('cap/urls')).toBeNull();
    expect((await h.jobs.allQueues()[0]!.getJobCounts()).waiting ?? 0).toBe(0);
  });

  it('stops a single-URL crawl at 150 pages without maxPages, and takes up to the limit when asked', async () => {
    const plain = await crawl({ libraryId: 'cap/default' }).expect(200);
    expect(plain.body).toMatchObject({ pagesDiscovered: 320, pagesCrawled: 150, pagesRendered: 0, errors: [] });

    const asked = await crawl({ libraryId: 'cap/asked', maxPages: 300 }).expect(200);
    expect(asked.body).toMatchObject({ pagesDiscovered: 320, pagesCrawled: 300, pagesRendered: 0, errors: [] });
    // One chunk a topic page, a few for the index's long list of links.
    expect(await h.adapters.libraries.countChunks('cap/asked')).toBe(asked.body.chunksIngested);
    expect(asked.body.chunksIngested).toBeGreaterThan(300);

    const listed = SITE.paths.slice(0, 300).map((p) => `${site.origin}${p}`);
    const several = await crawl({ libraryId: 'cap/listed', urls: listed }).expect(200);
    expect(several.body).toMatchObject({ pagesCrawled: 300, errors: [] });
  }, 120_000);
});

/** An index linking 999 topic pages, one chunk a topic page. */
const BIG_SITE = generateDocsSite({ pages: 1_000 });
const BIG_SITE_PAGES = BIG_SITE.paths.length;

interface BigCrawlSetup {
  h: Harness;
  site: FixtureServer;
  auth: { Authorization: string };
  baseUrl: string;
  /** The crawl worker processes started, the live one last. */
  workers: WorkerProcess[];
}

/**
 * A harness that serves every queue but crawl (the crawl's coordinator runs here), a crawl worker process beside it
 * (spawnCrawlWorker) and the 1,000-page site; filled in by beforeAll.
 */
function bigCrawlSetup(): BigCrawlSetup {
  const setup = { workers: [] as WorkerProcess[] } as BigCrawlSetup;
  beforeAll(async () => {
    setup.h = await startHarness({
      PRIVATE_HOST_ALLOWLIST: '127.0.0.1',
      CRAWL_MAX_PAGES: String(BIG_SITE_PAGES),
      CRAWL_HOST_PAGES_PER_SECOND: '0',
      WORKER_QUEUES: 'embed,backup,delete,ingest',
    });
    setup.auth = { Authorization: `Bearer ${await setup.h.createKey('admin')}` };
    setup.baseUrl = await setup.h.baseUrl();
    setup.site = await serveFixtures({ routes: BIG_SITE.route });
    setup.workers.push(await spawnCrawlWorker(setup.h));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(setup.workers.map(stopQuietly));
    await setup.site?.close();
    await setup.h?.close();
  });
  return setup;
}

/** A worker process that serves only the crawl queue, on the harness's queue prefix and data dir. */
function spawnCrawlWorker(h: Harness): Promise<WorkerProcess> {
  return spawnWorker({
    REDIS_URL,
    QUEUE_PREFIX: h.prefix,
    DATA_DIR: h.dataDir,
    HOST: '127.0.0.1',
    PRIVATE_HOST_ALLOWLIST: '127.0.0.1',
    WORKER_QUEUES: 'crawl',
    WORKER_CONCURRENCY_CRAWL: '8',
    CRAWL_MAX_PAGES: String(BIG_SITE_PAGES),
    CRAWL_HOST_PAGES_PER_SECOND: '0',
    // The pages a killed worker held go back to the queue within seconds (BullMQ's defaults: 45 s).
    WORKER_LOCK_DURATION_MS: '4000',
    WORKER_STALLED_INTERVAL_MS: '2000',
    LOG_LEVEL: 'warn',
  });
}

/** Starts a crawl of the whole 1,000-page site with `Prefer: respond-async`; returns its job id and its events. */
async function startBigCrawl(setup: BigCrawlSetup, libraryId: string) {
  const { h, site, auth, baseUrl } = setup;
  const accepted = await request(h.app)
    .post('/api/crawl')
    .set(auth)
    .set('Prefer', 'respond-async')
    .send({ libraryId, name: 'Widgetry', urls: [`${site.origin}${BIG_SITE.indexPath}`], maxPages: BIG_SITE_PAGES })
    .expect(202);
  const events = await openEventStream(`${baseUrl}${accepted.body.statusUrl}/events`, auth);
  return { jobId: accepted.body.jobId as string, events };
}

const pagesCrawledReach = (pages: number) => (e: SseEvent) => e.event === 'progress' && e.data.pagesCrawled >= pages;

describe('a 1,000-page crawl whose crawl worker process is killed halfway', () => {
  const setup = bigCrawlSetup();

  const chunksOf = async (libraryId: string) =>
    (await setup.h.adapters.libraries.listChunks(libraryId, { offset: 0, limit: 10_000 })).map(
      ({ id, title, content, url }) => ({ id, title, content, url }),
    );
  /** The crawl of the same site that nothing interrupts, run once for both tests. */
  let uninterrupted: Promise<{ last: SseEvent; chunks: Awaited<ReturnType<typeof chunksOf>> }> | undefined;
  const crawlUninterrupted = () =>
    (uninterrupted ??= (async () => {
      const ended = await (await startBigCrawl(setup, 'whole/uninterrupted')).events.ended;
      return { last: ended[ended.length - 1]!, chunks: await chunksOf('whole/uninterrupted') };
    })());

  it('uninterrupted, it takes each of the 1,000 pages once', async () => {
    const { last, chunks } = await crawlUninterrupted();
    expect(last).toEqual({
      event: 'completed',
      data: {
        success: true,
        libraryId: 'whole/uninterrupted',
        pagesDiscovered: BIG_SITE_PAGES,
        pagesCrawled: BIG_SITE_PAGES,
        pagesRendered: 0,
        pagesUnchanged: 0,
        chunksIngested: chunks.length,
        vectorized: false,
        errors: [],
      },
    });
  }, 90_000);

  it('a new worker completes it: each page stored once, the library as the uninterrupted crawl made it', async () => {
    const reference = await crawlUninterrupted();
    const { site, workers, h } = setup;
    const requestsBefore = site.requests.length;

    const { jobId, events } = await startBigCrawl(setup, 'whole/killed');
    const halfway = await events.next(pagesCrawledReach(BIG_SITE_PAGES / 2));
    expect((await signalAndWait(workers[0]!, 'SIGKILL')).signal).toBe('SIGKILL');
    workers.push(await spawnCrawlWorker(h));

    const ended = await events.ended;
    expect(ended[ended.length - 1]).toEqual({
      event: 'completed',
      data: { ...reference.last.data, libraryId: 'whole/killed' },
    });
    expect(await h.adapters.staging.listStagedPages(jobId)).toEqual([]);
    const chunks = await chunksOf('whole/killed');
    expect(new Set(chunks.map((c) => c.id)).size).toBe(chunks.length);
    expect(new Set(chunks.map((c) => c.content)).size).toBe(chunks.length);
    const chunksWith = new Map<string, number>();
    for (const chunk of chunks)
      for (const keyword of new Set(chunk.content.match(/\btopic\d{3}\b/g)))
        chunksWith.set(keyword, (chunksWith.get(keyword) ?? 0) + 1);
    const keywords = BIG_SITE.paths.slice(1).map((_, i) => topicKeyword(i + 1));
    expect(keywords.filter((keyword) => chunksWith.get(keyword) !== 1)).toEqual([]);
    expect(chunks).toEqual(reference.chunks);

    // The pages the killed worker had in flight were fetched again by the new one: expected, and no error.
    const served = new Map<string, number>();
    for (const path of site.requests.slice(requestsBefore).map((r) => new URL(r, site.origin).pathname))
      if (BIG_SITE.page(path)) served.set(path, (served.get(path) ?? 0) + 1);
    expect(served.size).toBe(BIG_SITE_PAGES);
    const servedTwice = [...served.values()].filter((n) => n > 1).length;
    // Page jobs count themselves live, so a page whose killed attempt had counted it is counted again by its retry;
    // the coordinator's exact count, once every page is done, puts the job's progress right.
    const { progress } = (await request(h.app).get(`/api/jobs/${jobId}`).set(setup.auth).expect(200)).body;
    expect(progress).toMatchObject({ pagesDiscovered: 1000, pagesCrawled: 1000, pagesFailed: 0, pagesRendered: 0 });
    console.log(
      `worker killed at ${halfway.data.pagesCrawled} pages crawled; the site served ${servedTwice} pages twice; ` +
        `the job's progress says ${progress.pagesCrawled} pages crawled`,
    );
  }, 90_000);
});

describe('a 1,000-page crawl cancelled at page 600', () => {
  const setup = bigCrawlSetup();
  let coordinators: Queue;
  let coordinatorEvents: QueueEvents;
  let redis: Redis;
  beforeAll(async () => {
    const queueOptions = { connection: { url: REDIS_URL }, prefix: setup.h.prefix };
    coordinators = new Queue('ingest', queueOptions);
    coordinatorEvents = new QueueEvents('ingest', queueOptions);
    await coordinatorEvents.waitUntilReady();
    redis = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    redis?.disconnect();
    await coordinatorEvents?.close();
    await coordinators?.close();
  });

  it('ends cancelled: no library, no staging, and no request to the site once the cancel has answered', async () => {
    const { h, site, auth } = setup;
    const requestsBefore = site.requests.length;
    const { jobId, events } = await startBigCrawl(setup, 'whole/cancelled');
    const at = await events.next(pagesCrawledReach(600));
    expect((await h.adapters.staging.listStagedPages(jobId)).length).toBeGreaterThanOrEqual(600);

    const cancelled = await request(h.app).delete(`/api/jobs/${jobId}`).set(auth).expect(200);
    const requestsAtCancel = site.requests.length;
    expect(cancelled.body).toMatchObject({ id: jobId, state: 'cancelled' });
    const ended = await events.ended;
    expect(ended[ended.length - 1]).toMatchObject({ event: 'cancelled', data: { id: jobId, state: 'cancelled' } });
    // The coordinator's last attempt sees the cancel and drops the staging: the crawl's last work.
    const coordinator = await Job.fromId(coordinators, jobId);
    await expect(coordinator!.waitUntilFinished(coordinatorEvents, 30_000)).rejects.toThrow(/JOB_CANCELLED/);

    expect(site.requests.length).toBe(requestsAtCancel);
    await request(h.app).get('/api/libraries/whole/cancelled').set(auth).expect(404);
    expect(await h.adapters.libraries.getLibrary('whole/cancelled')).toBeNull();
    expect(await h.adapters.staging.listStagedPages(jobId)).toEqual([]);
    expect(await redis.keys(`${h.prefix}:crawl-frontier:${jobId}:*`)).toEqual([]);
    expect(await request(h.app).get(`/api/jobs/${jobId}`).set(auth).expect(200)).toHaveProperty(
      'body.state',
      'cancelled',
    );
    console.log(
      `cancelled at ${at.data.pagesCrawled} pages crawled; the site served ${requestsAtCancel - requestsBefore} requests, none after the cancel answered`,
    );
  }, 90_000);
});
