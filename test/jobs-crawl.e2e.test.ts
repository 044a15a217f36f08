import { Job, Queue } from 'bullmq';
import request from 'supertest';
import { generateDocsSite } from './fixtures/generated-docs-site';
import { serveFixtures, type FixtureServer } from '@docshelf/testing/e2e/fixture-site';
import { makeChunks, REDIS_URL, startHarness, type Harness } from '@docshelf/testing/e2e/harness';
import { openEventStream } from '@docshelf/testing/e2e/sse';

const ASYNC = { Prefer: 'respond-async' };
const SITE = generateDocsSite();

describe('a crawl of the 150-page fixture site, asynchronously', () => {
  let h: Harness;
  let site: FixtureServer;
  let auth: { Authorization: string };
  let baseUrl: string;

  /** A harness for one test, with `env` over what every test needs. */
  const started: Harness[] = [];
  const startFor = async (env: Record<string, string>) => {
    h = await startHarness({ PRIVATE_HOST_ALLOWLIST: '127.0.0.1', ...env });
    started.push(h);
    auth = { Authorization: `Bearer ${await h.createKey('admin')}` };
    baseUrl = await h.baseUrl();
  };
  afterEach(async () => {
    await site?.close();
    await Promise.all(started.splice(0).map((harness) => harness.close()));
  });

  const crawlBody = (libraryId: string, extra: object = {}) => ({
    libraryId,
    name: 'Widgetry',
    urls: [`${site.origin}${SITE.indexPath}`],
    renderer: 'auto',
    ...extra,
  });
  const pagesFetched = () => site.requests.filter((r) => r.startsWith('/docs/')).length;

  it('answers 202 at once; the event stream counts pages up to 150 and ends with the synchronous result', async () => {
    // No spacing between a host's pages (10 a second by default, tested in crawl-limits.rel.test.ts): two crawls of
    // 150 pages, compared with each other.
    await startFor({ CRAWL_HOST_PAGES_PER_SECOND: '0' });
    site = await serveFixtures({ routes: SITE.route });
    const sync = await request(h.app).post('/api/crawl').set(auth).send(crawlBody('site/sync')).expect(200);
    expect(sync.body).toMatchObject({
      success: true,
      pagesDiscovered: 150,
      pagesCrawled: 150,
      chunksIngested: 150,
      vectorized: true,
      errors: [],
    });

    const accepted = await request(h.app)
      .post('/api/crawl')
      .set(auth)
      .set(ASYNC)
      .send(crawlBody('site/async'))
      .expect(202);
    const stream = await openEventStream(`${baseUrl}${accepted.body.statusUrl}/events`, auth);
    const events = await stream.ended;

    const progress = events.filter((e) => e.event === 'progress').map((e) => e.data);
    const crawled = progress
      .map((p) => p.pagesCrawled as number | undefined)
      .filter((n): n is number => n !== undefined);
    expect(crawled.length).toBeGreaterThan(3);
    expect(crawled).toEqual([...crawled].sort((a, b) => a - b));
    expect(crawled[crawled.length - 1]).toBe(150);
    // Phases arrive in order; a short one (committing 150 chunks) may be over before the stream reads the job.
    const order = ['queued', 'crawling', 'committing', 'indexing'];
    const phases = progress.map((p) => order.indexOf(p.phase));
    expect(phases).toEqual([...phases].sort((a, b) => a - b));
    expect(progress.map((p) => p.phase)).toEqual(expect.arrayContaining(['crawling', 'indexing']));
    expect(progress.find((p) => p.phase === 'indexing')).toMatchObject({
      chunksIngested: 150,
      pagesDiscovered: 150,
      pagesFailed: 0,
    });
    expect(events[events.length - 1]).toEqual({ event: 'completed', data: { ...sync.body, libraryId: 'site/async' } });

    const strip = (chunks: { id: string; content: string }[]) => chunks.map(({ id, content }) => ({ id, content }));
    expect(strip(await h.adapters.libraries.listChunks('site/async', { offset: 0, limit: 500 }))).toEqual(
      strip(await h.adapters.libraries.listChunks('site/sync', { offset: 0, limit: 500 })),
    );
  }, 120_000);

  it('DELETE mid-crawl: cancelled, no page fetched after the answer, the library unchanged', async () => {
    // The default spacing: when the cancel comes, pages are waiting for their host's turn as well as being fetched.
    await startFor({});
    site = await serveFixtures({ routes: SITE.route, delayMs: 40 });
    await request(h.app)
      .post('/api/ingest')
      .set(auth)
      .send({ libraryId: 'site/kept', name: 'Kept', chunks: makeChunks(2) })
      .expect(200);
    const before = await h.adapters.libraries.listChunks('site/kept', { offset: 0, limit: 10 });

    const { jobId } = (
      await request(h.app)
        .post('/api/crawl')
        .set(auth)
        .set(ASYNC)
        .send(crawlBody('site/kept', { replace: true, renderer: 'http' }))
        .expect(202)
    ).body;
    const stream = await openEventStream(`${baseUrl}/api/jobs/${jobId}/events`, auth);
    await stream.next((e) => e.event === 'progress' && e.data.pagesCrawled >= 10);

    const cancelled = await request(h.app).delete(`/api/jobs/${jobId}`).set(auth).expect(200);
    const fetchedWhenCancelled = pagesFetched();
    expect(cancelled.body).toMatchObject({ id: jobId, state: 'cancelled' });
    expect(fetchedWhenCancelled).toBeLessThan(150);
    const events = await stream.ended;
    expect(events[events.length - 1]).toMatchObject({ event: 'cancelled', data: { id: jobId, state: 'cancelled' } });

    // The coordinator resumes once its running pages stopped, sees the cancel and drops what they staged.
    const queue = new Queue('ingest', { connection: { url: REDIS_URL }, prefix: h.prefix });
    try {
      await waitFor(async () => (await (await Job.fromId(queue, jobId))?.getState()) === 'failed');
      expect((await Job.fromId(queue, jobId))!.failedReason).toContain('JOB_CANCELLED');
    } finally {
      await queue.close();
    }
    expect(await h.adapters.staging.listStagedPages(jobId)).toEqual([]);
    expect(pagesFetched()).toBe(fetchedWhenCancelled);
    expect(await h.adapters.libraries.listChunks('site/kept', { offset: 0, limit: 10 })).toEqual(before);
    expect(await h.adapters.vectors.count('site/kept')).toBe(2);
    expect((await request(h.app).get(`/api/jobs/${jobId}`).set(auth)).body).toMatchObject({ state: 'cancelled' });
  }, 60_000);
});

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
