import request from 'supertest';
import { serveFixtures, type FixtureServer } from '@docshelf/testing/e2e/fixture-site';
import { startHarness, type Harness } from '@docshelf/testing/e2e/harness';
import { mutableSite, recordEmbeddedTexts } from '@docshelf/testing/e2e/mutable-site';
import { openEventStream } from '@docshelf/testing/e2e/sse';

const DAY_MS = 24 * 3_600_000;

describe('refreshing a crawled library: refreshEvery and POST /api/refresh (real API, worker and Redis; site on 127.0.0.1)', () => {
  let h: Harness;
  let server: FixtureServer;
  let site: ReturnType<typeof mutableSite>;
  let auth: { Authorization: string };
  const embedded: string[] = [];
  const libraryId = 'refresh/scheduled';

  beforeAll(async () => {
    h = await startHarness({ PRIVATE_HOST_ALLOWLIST: '127.0.0.1' });
    auth = { Authorization: `Bearer ${await h.createKey('admin')}` };
    site = mutableSite(4);
    server = await serveFixtures({ routes: site.route });
    recordEmbeddedTexts(h.adapters.embedder, embedded);
  });
  afterAll(async () => {
    await server?.close();
    await h?.close();
  });

  const refresh = (body: object) => request(h.app).post('/api/refresh').set(auth).send(body);
  const libraryOf = async (id: string) => (await request(h.app).get(`/api/libraries/${id}`).expect(200)).body.library;
  /** The job schedulers BullMQ keeps for refreshes, by id. */
  const schedulers = async () => {
    const ingest = h.jobs.allQueues().find((queue) => queue.name === 'ingest')!;
    return (await ingest.getJobSchedulers()).map((s) => [s.key, s.every]);
  };
  const expectNear = (iso: string, at: number) => expect(Math.abs(Date.parse(iso) - at)).toBeLessThan(60_000);

  it('keeps a crawl’s settings and its schedule: the library shows when it is next refreshed, one scheduler however often set', async () => {
    const crawl = await request(h.app)
      .post('/api/crawl')
      .set(auth)
      .send({
        libraryId,
        name: 'Scheduled',
        urls: [`${server.origin}/docs/index.html`],
        refreshEvery: '1d',
        renderer: 'http',
      })
      .expect(200);
    expect(crawl.body).toMatchObject({ pagesCrawled: 5, pagesUnchanged: 0 });
    const library = await libraryOf(libraryId);
    expect(library.refresh).toEqual({ every: '1d', lastRefreshedAt: null, nextRefreshAt: expect.any(String) });
    expectNear(library.refresh.nextRefreshAt, Date.now() + DAY_MS);
    expect(await schedulers()).toEqual([[`refresh:${libraryId}`, DAY_MS]]);

    const set = await refresh({ libraryId, every: '12h' }).expect(200);
    expect(set.body).toEqual({
      libraryId,
      refresh: { every: '12h', lastRefreshedAt: null, nextRefreshAt: expect.any(String) },
    });
    expectNear(set.body.refresh.nextRefreshAt, Date.now() + DAY_MS / 2);
    expect(await schedulers()).toEqual([[`refresh:${libraryId}`, DAY_MS / 2]]);
  });

  it('refreshes an unchanged site without one embedding call, and re-embeds a changed page alone', async () => {
    embedded.length = 0;
    const unchanged = await refresh({ libraryId }).expect(200);
    expect(unchanged.body).toMatchObject({ success: true, pagesCrawled: 5, pagesUnchanged: 5 });
    expect(embedded).toEqual([]);

    site.change(2);
    const changed = await refresh({ libraryId }).expect(200);
    expect(changed.body).toMatchObject({ pagesCrawled: 5, pagesUnchanged: 4 });
    expect(embedded.length).toBeGreaterThan(0);
    expect(embedded.every((text) => text.includes('Page 2: second') || text.includes('page2second'))).toBe(true);
    const library = await libraryOf(libraryId);
    expectNear(library.refresh.lastRefreshedAt, Date.now());
    expect(await h.adapters.vectors.count(libraryId)).toBe(library.chunkCount);
  });

  it('runs what the scheduler adds each interval as a crawl job of its own, followed in /api/jobs', async () => {
    // The dashboard's view: a session sees every job, those no key started among them.
    const cookie = await h.login();
    const crawlJobs = async () => {
      const res = await request(h.app).get('/api/jobs').query({ libraryId }).set('Cookie', cookie);
      expect(res.status).toBe(200);
      return (res.body.jobs as { id: string; type: string }[]).filter((job) => job.type === 'crawl');
    };
    /** The job the library's scheduler adds when its interval comes round, and the crawl job it starts, to its end. */
    const scheduledRefresh = async () => {
      const before = (await crawlJobs()).length;
      embedded.length = 0;
      await h.jobs.enqueue('refresh-library', { libraryId }, { jobId: `refresh-${before}` });
      let jobs = await crawlJobs();
      while (jobs.length === before) {
        await new Promise((resolve) => setImmediate(resolve));
        jobs = await crawlJobs();
      }
      const stream = await openEventStream(`${await h.baseUrl()}/api/jobs/${jobs[0]!.id}/events`, { cookie });
      const events = await stream.ended;
      const job = await request(h.app).get(`/api/jobs/${jobs[0]!.id}`).set('Cookie', cookie).expect(200);
      expect(job.body).toMatchObject({ type: 'crawl', state: 'completed', progress: { pagesCrawled: 5 } });
      return events.at(-1)!;
    };

    expect(await scheduledRefresh()).toMatchObject({
      event: 'completed',
      data: { pagesCrawled: 5, pagesUnchanged: 5 },
    });
    expect(embedded).toEqual([]);

    site.change(3);
    expect(await scheduledRefresh()).toMatchObject({ event: 'completed', data: { libraryId, pagesUnchanged: 4 } });
    expect(embedded.length).toBeGreaterThan(0);
    expect(embedded.every((text) => text.includes('Page 3: second') || text.includes('page3second'))).toBe(true);
  });

  it('stops with every: null, and with the library’s deletion', async () => {
    expect((await refresh({ libraryId, every: null }).expect(200)).body).toEqual({ libraryId, refresh: null });
    expect(await schedulers()).toEqual([]);
    expect((await libraryOf(libraryId)).refresh).toBeUndefined();

    await refresh({ libraryId, every: '7d' }).expect(200);
    expect(await schedulers()).toEqual([[`refresh:${libraryId}`, 7 * DAY_MS]]);
    await request(h.app).delete(`/api/libraries/${libraryId}`).set(auth).expect(200);
    expect(await schedulers()).toEqual([]);
  });

  it('answers a clear 4xx for what cannot be refreshed or scheduled, and schedules nothing', async () => {
    await request(h.app)
      .post('/api/ingest')
      .set(auth)
      .send({
        libraryId: 'refresh/json',
        name: 'Json',
        chunks: [{ id: 'one', title: 'One', content: 'A chunk sent as JSON.', url: 'https://json.example/one' }],
      })
      .expect(200);
    const cases: [object, number, string][] = [
      [{ libraryId: 'refresh/none' }, 404, 'LIBRARY_NOT_FOUND'],
      [{ libraryId: 'refresh/json' }, 400, 'NOT_REFRESHABLE'],
      [{ libraryId: 'refresh/json', every: '30m' }, 400, 'VALIDATION_FAILED'],
      [{ libraryId: 'refresh/json', every: '0h' }, 400, 'VALIDATION_FAILED'],
      [{ libraryId: 'refresh/json', when: 'now' }, 400, 'VALIDATION_FAILED'],
    ];
    for (const [body, status, code] of cases) {
      const res = await refresh(body);
      expect([body, res.status, res.body.code]).toEqual([body, status, code]);
    }
    const bad = await request(h.app)
      .post('/api/crawl')
      .set(auth)
      .send({ libraryId: 'refresh/bad', name: 'Bad', urls: [`${server.origin}/docs/index.html`], refreshEvery: '2w' });
    expect([bad.status, bad.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    await request(h.app).get('/api/libraries/refresh/bad').expect(404);
    expect(await schedulers()).toEqual([]);
    await request(h.app).post('/api/refresh').send({ libraryId: 'refresh/json' }).expect(401);
  });
});
