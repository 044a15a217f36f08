import { Queue } from 'bullmq';
import request from 'supertest';
import { DOCS_SITE, serveFixtures, type FixtureServer } from '@docshelf/testing/e2e/fixture-site';
import { makeChunks, REDIS_URL, startHarness, type Harness } from '@docshelf/testing/e2e/harness';
import { openEventStream } from '@docshelf/testing/e2e/sse';

const ASYNC = { Prefer: 'respond-async' };

/** Asynchronous mode (docs/api.md): 202 with a job id, the job's record, its event stream, the list. */
describe('asynchronous jobs: Prefer: respond-async, GET /api/jobs, the event stream', () => {
  let h: Harness;
  let site: FixtureServer;
  let auth: { Authorization: string };
  let baseUrl: string;

  beforeAll(async () => {
    h = await startHarness({ PRIVATE_HOST_ALLOWLIST: '127.0.0.1' });
    auth = { Authorization: `Bearer ${await h.createKey('admin')}` };
    site = await serveFixtures({ root: DOCS_SITE });
    baseUrl = await h.baseUrl();
  });
  afterAll(async () => {
    await site.close();
    await h.close();
  });

  const events = (jobId: string) => openEventStream(`${baseUrl}/api/jobs/${jobId}/events`, auth);
  const job = async (jobId: string) => (await request(h.app).get(`/api/jobs/${jobId}`).set(auth).expect(200)).body;

  it('answers 202 at once; the job ends with exactly the body the synchronous call answers', async () => {
    const body = (libraryId: string) => ({ libraryId, name: 'Widgets', chunks: makeChunks(3) });
    const sync = await request(h.app).post('/api/ingest').set(auth).send(body('mode/sync')).expect(200);

    const accepted = await request(h.app).post('/api/ingest').set(auth).set(ASYNC).send(body('mode/async')).expect(202);
    const { jobId } = accepted.body;
    expect(accepted.body).toEqual({ jobId: expect.any(String), state: 'queued', statusUrl: `/api/jobs/${jobId}` });
    expect(accepted.headers.location).toBe(`/api/jobs/${jobId}`);
    expect(accepted.headers['preference-applied']).toBe('respond-async');

    const stream = await events(jobId);
    expect(stream.status).toBe(200);
    expect(stream.contentType).toMatch(/^text\/event-stream/);
    const all = await stream.ended;
    const final = all[all.length - 1]!;
    expect(final).toEqual({ event: 'completed', data: { ...sync.body, libraryId: 'mode/async' } });
    expect(all.slice(0, -1).every((e) => e.event === 'progress')).toBe(true);

    expect(await job(jobId)).toEqual({
      id: jobId,
      type: 'ingest',
      libraryId: 'mode/async',
      state: 'completed',
      progress: { phase: 'done', done: 3, total: 3, chunksIngested: 3 },
      result: final.data,
      createdAt: expect.any(String),
      startedAt: expect.any(String),
      finishedAt: expect.any(String),
    });
    expect(await h.adapters.vectors.count('mode/async')).toBe(3);
    expect(await h.adapters.backups.list('mode/async')).toHaveLength(1);
  });

  it('gives a client that connects after the end the final event at once', async () => {
    const { jobId } = (
      await request(h.app)
        .post('/api/ingest')
        .set(auth)
        .set(ASYNC)
        .send({ libraryId: 'late/one', name: 'Late', chunks: makeChunks(2) })
        .expect(202)
    ).body;
    await (
      await events(jobId)
    ).ended;
    const late = await (await events(jobId)).ended;
    expect(late).toEqual([
      { event: 'completed', data: { success: true, libraryId: 'late/one', chunksIngested: 2, vectorized: true } },
    ]);
  });

  it('keeps a failed job with the error the synchronous call answers', async () => {
    const crawl = { libraryId: 'fail/none', name: 'None', urls: [`${site.origin}/missing.html`] };
    const sync = await request(h.app).post('/api/crawl').set(auth).send(crawl).expect(400);
    const { jobId } = (await request(h.app).post('/api/crawl').set(auth).set(ASYNC).send(crawl).expect(202)).body;
    const all = await (await events(jobId)).ended;
    expect(all[all.length - 1]).toEqual({ event: 'failed', data: sync.body });
    expect(await job(jobId)).toMatchObject({
      type: 'crawl',
      state: 'failed',
      error: sync.body,
      progress: { pagesFailed: 1, pagesCrawled: 0 },
    });
    expect((await job(jobId)).result).toBeUndefined();
    await request(h.app).get('/api/libraries/fail/none').expect(404);
  });

  it('runs embed and ingest-url asynchronously too', async () => {
    await request(h.app)
      .post('/api/ingest')
      .set(auth)
      .send({ libraryId: 'embed/async', name: 'E', chunks: makeChunks(60) })
      .expect(200);
    const embed = await request(h.app)
      .post('/api/embed')
      .set(auth)
      .set(ASYNC)
      .send({ libraryId: 'embed/async', limit: 40 })
      .expect(202);
    // A short job may be over before the stream first reads it: then the final event is all there is.
    const embedded = await (await events(embed.body.jobId)).ended;
    expect(
      embedded.slice(0, -1).every((e) => e.event === 'progress' && ['queued', 'embedding'].includes(e.data.phase)),
    ).toBe(true);
    expect(embedded[embedded.length - 1]).toEqual({
      event: 'completed',
      data: { libraryId: 'embed/async', processed: 40, total: 60, offset: 0, nextOffset: 40, done: false },
    });
    expect(await job(embed.body.jobId)).toMatchObject({
      type: 'embed',
      state: 'completed',
      progress: { done: 40, total: 40 },
    });

    const cookie = await h.login();
    const url = await request(h.app)
      .post('/api/ingest-url')
      .set('Cookie', cookie)
      .set(ASYNC)
      .send({ libraryId: 'url/async', name: 'U', sourceUrl: `${site.origin}/llms.txt`, sourceType: 'llms_txt' })
      .expect(202);
    const fetched = await openEventStream(`${baseUrl}/api/jobs/${url.body.jobId}/events`, { cookie });
    const ended = await fetched.ended;
    expect(ended[ended.length - 1]).toEqual({
      event: 'completed',
      data: { success: true, libraryId: 'url/async', chunksIngested: 4, vectorized: true },
    });
    // A job a session started is the session's to read: an API key sees only the jobs it started.
    await request(h.app).get(`/api/jobs/${url.body.jobId}`).set(auth).expect(404);
    const urlJob = await request(h.app).get(`/api/jobs/${url.body.jobId}`).set('Cookie', cookie).expect(200);
    expect(urlJob.body).toMatchObject({
      type: 'ingest-url',
      state: 'completed',
      progress: { phase: 'done', chunksIngested: 4 },
    });
  });

  it('lists jobs newest first, by library and by state', async () => {
    const start = async (libraryId: string) =>
      (
        await request(h.app)
          .post('/api/ingest')
          .set(auth)
          .send({ libraryId, name: 'L', chunks: makeChunks(1) })
          .expect(200)
      ).body;
    await start('list/a');
    await start('list/b');
    await start('list/a');
    const all = (await request(h.app).get('/api/jobs').set(auth).expect(200)).body.jobs;
    const createdAt = all.map((j: { createdAt: string }) => j.createdAt);
    expect(createdAt).toEqual([...createdAt].sort().reverse());
    const listA = (await request(h.app).get('/api/jobs?libraryId=list/a').set(auth).expect(200)).body.jobs;
    expect(listA).toHaveLength(2);
    expect(
      listA.every((j: { libraryId: string; state: string }) => j.libraryId === 'list/a' && j.state === 'completed'),
    ).toBe(true);
    expect(listA[0].createdAt >= listA[1].createdAt).toBe(true);
    expect(
      (await request(h.app).get('/api/jobs?libraryId=list/a&state=failed').set(auth).expect(200)).body.jobs,
    ).toEqual([]);
    expect((await request(h.app).get('/api/jobs?limit=1').set(auth).expect(200)).body.jobs).toHaveLength(1);
    const bad = await request(h.app).get('/api/jobs?state=sleeping').set(auth).expect(400);
    expect(bad.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [expect.objectContaining({ path: 'state' })],
    });
  });

  it('answers 404 JOB_NOT_FOUND for unknown and malformed ids, and needs an admin key or a session', async () => {
    for (const id of ['6f1c1e9e-3b0a-4c55-9a51-1f4f3b1c2d3e', 'not-a-job', '..%2F..%2Fetc']) {
      const res = await request(h.app).get(`/api/jobs/${id}`).set(auth).expect(404);
      expect(res.body).toMatchObject({ code: 'JOB_NOT_FOUND' });
    }
    await request(h.app).delete('/api/jobs/6f1c1e9e-3b0a-4c55-9a51-1f4f3b1c2d3e').set(auth).expect(404);
    await request(h.app).get('/api/jobs/6f1c1e9e-3b0a-4c55-9a51-1f4f3b1c2d3e/events').set(auth).expect(404);

    const { jobId } = (
      await request(h.app)
        .post('/api/ingest')
        .set(auth)
        .set(ASYNC)
        .send({ libraryId: 'auth/x', name: 'X', chunks: makeChunks(1) })
        .expect(202)
    ).body;
    await request(h.app).get(`/api/jobs/${jobId}`).expect(401);
    await request(h.app).get('/api/jobs').expect(401);
    const read = await h.createKey('read');
    await request(h.app).get(`/api/jobs/${jobId}`).set('Authorization', `Bearer ${read}`).expect(403);
    await request(h.app).delete(`/api/jobs/${jobId}`).set('Authorization', `Bearer ${read}`).expect(403);
    await request(h.app)
      .get(`/api/jobs/${jobId}`)
      .set('Cookie', await h.login())
      .expect(200);
  });

  it('validates the Prefer header and ignores preferences it does not know', async () => {
    const body = { libraryId: 'prefer/x', name: 'X', chunks: makeChunks(1) };
    const long = await request(h.app)
      .post('/api/ingest')
      .set(auth)
      .set('Prefer', `respond-async, ${'x'.repeat(2_000)}`)
      .send(body)
      .expect(400);
    expect(long.body).toMatchObject({ code: 'VALIDATION_FAILED', error: expect.stringContaining('Prefer header') });
    expect((await request(h.app).get('/api/jobs?libraryId=prefer/x').set(auth)).body.jobs).toEqual([]);
    await request(h.app).post('/api/ingest').set(auth).set('Prefer', 'return=minimal, wait=5').send(body).expect(200);
    await request(h.app)
      .post('/api/ingest')
      .set(auth)
      .set('Prefer', 'wait=5; x=1, Respond-Async')
      .send(body)
      .expect(202);
  });

  it('keeps finished jobs readable after Redis no longer has them', async () => {
    const { jobId } = (
      await request(h.app)
        .post('/api/ingest')
        .set(auth)
        .set(ASYNC)
        .send({ libraryId: 'keep/me', name: 'K', chunks: makeChunks(2) })
        .expect(202)
    ).body;
    await (
      await events(jobId)
    ).ended;
    const queue = new Queue('ingest', { connection: { url: REDIS_URL }, prefix: h.prefix });
    try {
      expect(await queue.getJob(jobId)).toBeDefined();
      await queue.remove(jobId);
      expect(await queue.getJob(jobId)).toBeUndefined();
    } finally {
      await queue.close();
    }
    expect(await job(jobId)).toMatchObject({
      state: 'completed',
      result: { success: true, libraryId: 'keep/me', chunksIngested: 2 },
    });
  });

  it('refuses callbackUrl when this server has no WEBHOOK_SECRET to sign callbacks, and writes nothing', async () => {
    const res = await request(h.app)
      .post('/api/ingest')
      .set(auth)
      .send({
        libraryId: 'hook/off',
        name: 'H',
        chunks: makeChunks(1),
        callbackUrl: 'https://hooks.example.com/docshelf',
      })
      .expect(400);
    expect(res.body).toMatchObject({ code: 'CALLBACKS_DISABLED' });
    expect((await request(h.app).get('/api/jobs?libraryId=hook/off').set(auth)).body.jobs).toEqual([]);
    await request(h.app).get('/api/libraries/hook/off').expect(404);
  });
});
