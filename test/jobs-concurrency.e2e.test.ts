import request from 'supertest';
import { generateDocsSite } from './fixtures/generated-docs-site';
import { serveFixtures, type FixtureServer } from '@docshelf/testing/e2e/fixture-site';
import { startHarness, type Harness } from '@docshelf/testing/e2e/harness';
import { openEventStream } from '@docshelf/testing/e2e/sse';

const SITE = generateDocsSite();

/**
 * A crawl coordinator waits for its pages without holding a worker slot: with two jobs at once per queue, four
 * crawls whose pages cannot finish yet still leave room for a URL ingestion.
 */
describe('four crawls and an ingest-url at worker concurrency 2', () => {
  let h: Harness;
  let site: FixtureServer;
  let release: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));

  beforeAll(async () => {
    h = await startHarness({ PRIVATE_HOST_ALLOWLIST: '127.0.0.1', WORKER_CONCURRENCY: '2' });
    // Every docs page waits for the test's go; robots.txt and llms.txt answer at once.
    site = await serveFixtures({
      routes: (req, res) => {
        if (!req.url?.startsWith('/docs/')) return SITE.route(req, res);
        void held.then(() => SITE.route(req, res));
        return true;
      },
    });
  });
  afterAll(async () => {
    release();
    await site.close();
    await h.close();
  });

  it('the ingest-url finishes while the four crawls are still running', async () => {
    const auth = { Authorization: `Bearer ${await h.createKey('admin')}` };
    const baseUrl = await h.baseUrl();
    const crawls = await Promise.all(
      [1, 2, 3, 4].map(async (n) => {
        const body = {
          libraryId: `busy/crawl-${n}`,
          name: `Crawl ${n}`,
          urls: [`${site.origin}${SITE.indexPath}`],
          renderer: 'http',
          maxPages: 20,
        };
        const { jobId } = (
          await request(h.app).post('/api/crawl').set(auth).set('Prefer', 'respond-async').send(body).expect(202)
        ).body;
        return { jobId, stream: await openEventStream(`${baseUrl}/api/jobs/${jobId}/events`, auth) };
      }),
    );

    const ingested = await request(h.app)
      .post('/api/ingest-url')
      .set('Cookie', await h.login())
      .send({ libraryId: 'busy/llms', name: 'Llms', sourceUrl: `${site.origin}/llms.txt`, sourceType: 'llms_txt' })
      .expect(200);
    expect(ingested.body).toMatchObject({ success: true, libraryId: 'busy/llms', vectorized: true });
    for (const { jobId } of crawls) {
      expect((await request(h.app).get(`/api/jobs/${jobId}`).set(auth)).body).toMatchObject({
        state: 'running',
        progress: { phase: 'crawling', pagesCrawled: 0 },
      });
    }

    release();
    for (const { stream } of crawls) {
      const events = await stream.ended;
      expect(events[events.length - 1]).toMatchObject({ event: 'completed', data: { pagesCrawled: 20, errors: [] } });
    }
  }, 90_000);
});
