import request from 'supertest';
import { makeChunks, startHarness, type Harness } from '@docshelf/testing/e2e/harness';
import { openEventStream } from '@docshelf/testing/e2e/sse';

const ASYNC = { Prefer: 'respond-async' };

/** This harness serves every queue but `ingest`, so ingest jobs stay queued until a test starts a worker for it. */
describe('queued jobs: cancel, and a synchronous wait that times out', () => {
  let h: Harness;
  let auth: { Authorization: string };
  let baseUrl: string;

  beforeAll(async () => {
    h = await startHarness({ WORKER_QUEUES: 'embed,backup,delete,crawl', JOB_WAIT_TIMEOUT_MS: '1500' });
    auth = { Authorization: `Bearer ${await h.createKey('admin')}` };
    baseUrl = await h.baseUrl();
  });
  afterAll(async () => h.close());

  const job = async (jobId: string) => (await request(h.app).get(`/api/jobs/${jobId}`).set(auth).expect(200)).body;

  it('cancels a queued job: nothing is written, a second cancel is refused, the worker only cleans up', async () => {
    const { jobId } = (
      await request(h.app)
        .post('/api/ingest')
        .set(auth)
        .set(ASYNC)
        .send({ libraryId: 'cancel/queued', name: 'C', chunks: makeChunks(5) })
        .expect(202)
    ).body;
    expect(await job(jobId)).toMatchObject({ state: 'queued', progress: { phase: 'queued' } });
    expect((await h.adapters.staging.listStagedPages(jobId)).length).toBe(1);

    const cancelled = await request(h.app).delete(`/api/jobs/${jobId}`).set(auth).expect(200);
    expect(cancelled.body).toMatchObject({ id: jobId, state: 'cancelled', finishedAt: expect.any(String) });
    const again = await request(h.app).delete(`/api/jobs/${jobId}`).set(auth).expect(409);
    expect(again.body).toMatchObject({ code: 'JOB_NOT_CANCELLABLE' });
    expect(await (await openEventStream(`${baseUrl}/api/jobs/${jobId}/events`, auth)).ended).toEqual([
      { event: 'cancelled', data: expect.objectContaining({ id: jobId, state: 'cancelled' }) },
    ]);

    // The worker that finally takes the job sees the cancel: it drops the staged chunks and commits nothing.
    const stop = h.startWorker(['ingest']);
    try {
      await waitFor(async () => (await h.adapters.staging.listStagedPages(jobId)).length === 0);
      await request(h.app).get('/api/libraries/cancel/queued').expect(404);
      expect(await job(jobId)).toMatchObject({ state: 'cancelled' });
    } finally {
      await stop();
    }
  });

  it('a synchronous request whose job is cancelled answers 409 JOB_CANCELLED', async () => {
    const pending = request(h.app)
      .post('/api/ingest')
      .set(auth)
      .send({ libraryId: 'cancel/sync', name: 'S', chunks: makeChunks(2) });
    const answered = pending.then((res) => res);
    let jobId: string | undefined;
    await waitFor(async () => {
      jobId = (await request(h.app).get('/api/jobs?libraryId=cancel/sync').set(auth)).body.jobs[0]?.id;
      return jobId !== undefined;
    });
    await request(h.app).delete(`/api/jobs/${jobId}`).set(auth).expect(200);
    const stop = h.startWorker(['ingest']);
    try {
      const res = await answered;
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ code: 'JOB_CANCELLED' });
    } finally {
      await stop();
    }
  });

  it('a synchronous wait that times out answers 504 with the job id; the job goes on and completes', async () => {
    const res = await request(h.app)
      .post('/api/ingest')
      .set(auth)
      .send({ libraryId: 'slow/sync', name: 'S', chunks: makeChunks(4) })
      .expect(504);
    expect(res.body).toMatchObject({ code: 'JOB_TIMEOUT', jobId: expect.any(String) });
    expect(await job(res.body.jobId)).toMatchObject({ state: 'queued', libraryId: 'slow/sync' });

    const stop = h.startWorker(['ingest']);
    try {
      const ended = await (await openEventStream(`${baseUrl}/api/jobs/${res.body.jobId}/events`, auth)).ended;
      expect(ended[ended.length - 1]).toEqual({
        event: 'completed',
        data: { success: true, libraryId: 'slow/sync', chunksIngested: 4, vectorized: true },
      });
      expect(await job(res.body.jobId)).toMatchObject({ state: 'completed' });
      expect(await h.adapters.libraries.countChunks('slow/sync')).toBe(4);
    } finally {
      await stop();
    }
  });
});

/** Polls a condition that some other process makes true (a worker cleaning up), with a deadline. */
async function waitFor(condition: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
