import { createApiKey } from '@docshelf/core';
import request from 'supertest';
import { makeChunks, startHarness, type Harness } from '@docshelf/testing/e2e/harness';
import { recordFigure } from '@docshelf/testing/reliability/figures';

describe('Idempotency-Key on the job endpoints (API + worker + Redis + SQLite)', () => {
  let h: Harness;
  let auth: { Authorization: string };

  beforeAll(async () => {
    h = await startHarness();
    auth = { Authorization: `Bearer ${await h.createKey('admin')}` };
  });
  afterAll(async () => h.close());

  const ingest = (key: string | undefined, body: object, extra: Record<string, string> = {}) => {
    const req = request(h.app).post('/api/ingest').set(auth).set(extra);
    return (key ? req.set('Idempotency-Key', key) : req).send(body);
  };
  const jobsOf = async (libraryId: string) =>
    (await request(h.app).get('/api/jobs').query({ libraryId }).set(auth).expect(200)).body.jobs;

  it('answers a repeat with the first result and runs the work once', async () => {
    const body = { libraryId: 'idem/once', name: 'Once', chunks: makeChunks(3) };
    const first = await ingest('order-1', body).expect(200);
    const again = await ingest('order-1', body).expect(200);
    expect(again.body).toEqual(first.body);
    expect(await jobsOf('idem/once')).toHaveLength(1);
    expect(await h.adapters.backups.list('idem/once')).toHaveLength(1);
    expect(await h.adapters.libraries.countChunks('idem/once')).toBe(3);
  });

  it('answers simultaneous repeats from one job', async () => {
    const body = { libraryId: 'idem/burst', name: 'Burst', chunks: makeChunks(5) };
    const answers = await Promise.all(Array.from({ length: 8 }, () => ingest('burst-1', body)));
    const jobs = await jobsOf('idem/burst');
    recordFigure({
      scenario: 'idempotency: 8 simultaneous repeats',
      requests: 8,
      faults: 0,
      serverErrors: answers.filter((a) => a.status >= 500).length,
      rowsLost: 5 - (await h.adapters.libraries.countChunks('idem/burst')),
      duplicates: jobs.length - 1 + ((await h.adapters.backups.list('idem/burst')).length - 1),
      note: `${new Set(answers.map((a) => JSON.stringify(a.body))).size} distinct answer(s), ${jobs.length} job(s)`,
    });
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).toBe(1);
    expect(jobs).toHaveLength(1);
  });

  it('gives a repeat of an asynchronous request the same job, and a synchronous repeat its result', async () => {
    const body = { libraryId: 'idem/async', name: 'Async', chunks: makeChunks(2) };
    const accepted = await ingest('async-1', body, { Prefer: 'respond-async' }).expect(202);
    const repeat = await ingest('async-1', body, { Prefer: 'respond-async' }).expect(202);
    expect(repeat.body).toEqual(accepted.body);
    const waited = await ingest('async-1', body).expect(200);
    expect(waited.body).toEqual({ success: true, libraryId: 'idem/async', chunksIngested: 2, vectorized: true });
    expect(await jobsOf('idem/async')).toHaveLength(1);
  });

  it('repeats a failure as it first answered, and refuses the key for a different request', async () => {
    // A crawl whose only page is refused fails in the worker with 400 NO_CONTENT; its repeat answers the same.
    const crawl = () =>
      request(h.app)
        .post('/api/crawl')
        .set(auth)
        .set('Idempotency-Key', 'crawl-1')
        .send({
          libraryId: 'idem/failed',
          name: 'Failed',
          urls: ['http://127.0.0.1:9/a.html', 'http://127.0.0.1:9/b.html'],
        });
    const failed = await crawl().expect(400);
    expect(failed.body.code).toBe('NO_CONTENT');
    const again = await crawl().expect(400);
    expect(again.body).toEqual(failed.body);
    expect(await jobsOf('idem/failed')).toHaveLength(1);

    const other = await ingest('order-1', { libraryId: 'idem/once', name: 'Once', chunks: makeChunks(4) }).expect(422);
    expect(other.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await h.adapters.libraries.countChunks('idem/once')).toBe(3);
  });

  it('keeps keys apart per user and refuses malformed keys', async () => {
    const user = await h.adapters.accounts.upsertUser({
      email: 'second@docshelf.test',
      passwordHash: 'x',
      now: new Date(),
    });
    const { key } = await createApiKey({ accounts: h.adapters.accounts }, user.id, {
      name: 'second',
      permissions: 'admin',
    });
    // The same key from another user is another key: its request runs (and, with other chunks, is no conflict).
    const theirs = await request(h.app)
      .post('/api/ingest')
      .set('Authorization', `Bearer ${key}`)
      .set('Idempotency-Key', 'order-1')
      .send({ libraryId: 'idem/theirs', name: 'Theirs', chunks: makeChunks(4) })
      .expect(200);
    expect(theirs.body).toMatchObject({ libraryId: 'idem/theirs', chunksIngested: 4 });
    for (const bad of ['', 'with space', 'x'.repeat(256), 'ünïcode']) {
      const res = await ingest(
        undefined,
        { libraryId: 'idem/bad', name: 'Bad', chunks: makeChunks(1) },
        { 'Idempotency-Key': bad },
      );
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
    }
    expect(await h.adapters.libraries.getLibrary('idem/bad')).toBeNull();
  });
});
