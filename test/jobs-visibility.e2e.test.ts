import request from 'supertest';
import { makeChunks, startHarness, type Harness } from '@docshelf/testing/e2e/harness';

/**
 * An API key sees, follows and cancels only the jobs it started; a dashboard session sees every job. Another key's
 * job answers 404 JOB_NOT_FOUND, as an unknown one does, so a key learns nothing of jobs that are not its own.
 */
describe('job visibility by API key (API + worker + Redis + SQLite)', () => {
  let h: Harness;
  let alice: { Authorization: string };
  let bob: { Authorization: string };
  let session: { Cookie: string };
  let aliceJob: string;
  let sessionJob: string;

  /** Starts an ingest job with respond-async and returns its id. */
  const startJob = async (credential: Record<string, string>, libraryId: string) => {
    const res = await request(h.app)
      .post('/api/ingest')
      .set(credential)
      .set('Prefer', 'respond-async')
      .send({ libraryId, name: libraryId, chunks: makeChunks(1) })
      .expect(202);
    return res.body.jobId as string;
  };

  beforeAll(async () => {
    // No ingest worker: the jobs stay queued, so they can still be cancelled.
    h = await startHarness({ WORKER_QUEUES: 'delete' });
    alice = { Authorization: `Bearer ${await h.createKey('admin', 'alice')}` };
    bob = { Authorization: `Bearer ${await h.createKey('admin', 'bob')}` };
    session = { Cookie: await h.login() };
    aliceJob = await startJob(alice, 'vis/alice');
    sessionJob = await startJob(session, 'vis/dashboard');
  });
  afterAll(async () => h.close());

  it('a key reads and lists only its own jobs', async () => {
    await request(h.app).get(`/api/jobs/${aliceJob}`).set(alice).expect(200);
    const other = await request(h.app).get(`/api/jobs/${aliceJob}`).set(bob).expect(404);
    expect(other.body.code).toBe('JOB_NOT_FOUND');
    await request(h.app).get(`/api/jobs/${sessionJob}`).set(alice).expect(404);

    const aliceList = await request(h.app).get('/api/jobs').set(alice).expect(200);
    expect(aliceList.body.jobs.map((j: { id: string }) => j.id)).toEqual([aliceJob]);
    const bobList = await request(h.app).get('/api/jobs').set(bob).expect(200);
    expect(bobList.body.jobs).toEqual([]);
  });

  it('a key cannot follow or cancel another key’s job', async () => {
    await request(h.app).get(`/api/jobs/${aliceJob}/events`).set(bob).expect(404);
    await request(h.app).delete(`/api/jobs/${aliceJob}`).set(bob).expect(404);
    expect((await request(h.app).get(`/api/jobs/${aliceJob}`).set(alice).expect(200)).body.state).toBe('queued');
  });

  it('a session sees and lists every job, and may cancel any', async () => {
    await request(h.app).get(`/api/jobs/${aliceJob}`).set(session).expect(200);
    const list = await request(h.app).get('/api/jobs').set(session).expect(200);
    expect(list.body.jobs.map((j: { id: string }) => j.id).sort()).toEqual([aliceJob, sessionJob].sort());
    const cancelled = await request(h.app).delete(`/api/jobs/${sessionJob}`).set(session).expect(200);
    expect(cancelled.body.state).toBe('cancelled');
  });

  it('the key that started a job cancels it', async () => {
    const cancelled = await request(h.app).delete(`/api/jobs/${aliceJob}`).set(alice).expect(200);
    expect(cancelled.body.state).toBe('cancelled');
  });
});
