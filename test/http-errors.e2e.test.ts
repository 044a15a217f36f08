import Database from 'better-sqlite3';
import path from 'node:path';
import request from 'supertest';
import { makeChunks, startHarness, type Harness } from '@docshelf/testing/e2e/harness';

describe('bad input gets a clear JSON error and writes nothing', () => {
  let h: Harness;
  let auth: { Authorization: string };
  beforeAll(async () => {
    h = await startHarness({ BODY_LIMIT: '200kb' });
    auth = { Authorization: `Bearer ${await h.createKey('admin')}` };
  });
  afterAll(async () => h.close());

  it.each([
    ['libraryId', { name: 'N', chunks: makeChunks(1) }],
    ['name', { libraryId: 'x', chunks: makeChunks(1) }],
    ['chunks', { libraryId: 'x', name: 'N' }],
  ])('ingest without %s is 400 naming the field', async (field, body) => {
    const res = await request(h.app).post('/api/ingest').set(auth).send(body).expect(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', error: expect.stringContaining(field) });
    expect(res.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: field })]));
  });

  it('rejects invalid chunks and library ids with the offending paths, and stores nothing', async () => {
    const pathsOf = (res: request.Response) => res.body.details.map((d: { path: string }) => d.path);
    const missing = await request(h.app)
      .post('/api/ingest')
      .set(auth)
      .send({ libraryId: 'ok', name: 'N', chunks: [{ id: 'a', content: 'x' }, { id: 'b' }, { content: 'z' }] })
      .expect(400);
    expect(pathsOf(missing)).toEqual(['chunks.1.content', 'chunks.2.id']);
    const duplicate = await request(h.app)
      .post('/api/ingest')
      .set(auth)
      .send({
        libraryId: 'ok',
        name: 'N',
        chunks: [
          { id: 'a', content: 'x' },
          { id: 'a', content: 'y' },
        ],
      })
      .expect(400);
    expect(duplicate.body.details).toEqual([
      expect.objectContaining({ path: 'chunks.1.id', message: "duplicate chunk id 'a'" }),
    ]);
    for (const libraryId of ['../etc', '/lead', 'trail/', 'a//b', 'sp ace', 'x'.repeat(129), 'a/../b']) {
      await request(h.app)
        .post('/api/ingest')
        .set(auth)
        .send({ libraryId, name: 'N', chunks: makeChunks(1) })
        .expect(400);
    }
    expect((await request(h.app).get('/api/libraries').expect(200)).body.libraries).toEqual([]);
  });

  it('malformed JSON is 400, a wrong content type 415, a body over BODY_LIMIT 413', async () => {
    const malformed = await request(h.app)
      .post('/api/ingest')
      .set(auth)
      .set('Content-Type', 'application/json')
      .send('{"libraryId": "x",')
      .expect(400);
    expect(malformed.body).toEqual({ error: 'Request body is not valid JSON', code: 'MALFORMED_JSON' });

    const text = await request(h.app)
      .post('/api/ingest')
      .set(auth)
      .set('Content-Type', 'text/plain')
      .send('hello')
      .expect(415);
    expect(text.body.code).toBe('UNSUPPORTED_MEDIA_TYPE');

    const big = await request(h.app)
      .post('/api/ingest')
      .set(auth)
      .send({ libraryId: 'big', name: 'Big', chunks: makeChunks(400, { words: 100 }) })
      .expect(413);
    expect(big.body.code).toBe('PAYLOAD_TOO_LARGE');
    await request(h.app).get('/api/libraries/big').expect(404);
  });

  it.each(['/api/jobs/%', '/api/jobs/%zz/events', '/api/libraries/vercel/%E0%A4%A', '/libraries/%', '/jobs/%C0%AF'])(
    'a path that does not percent-decode is 400 BAD_REQUEST on every method, credentials or not: %s',
    async (path) => {
      for (const method of ['get', 'post', 'put', 'patch', 'delete', 'options'] as const) {
        for (const headers of [{}, auth]) {
          const res = await request(h.app)[method](path).set(headers);
          expect({ method, status: res.status, body: res.body }).toEqual({
            method,
            status: 400,
            body: { error: expect.stringContaining('Malformed URL'), code: 'BAD_REQUEST' },
          });
        }
      }
      await request(h.app).head(path).expect(400);
    },
  );

  it('unknown routes are a JSON 404', async () => {
    const res = await request(h.app).get('/api/nothing-here').expect(404);
    expect(res.body.code).toBe('NOT_FOUND');
  });

  it('a failure inside the worker reaches the client as a 500 with an errorId', async () => {
    await request(h.app)
      .post('/api/ingest')
      .set(auth)
      .send({ libraryId: 'broken', name: 'B', chunks: makeChunks(2) })
      .expect(200);
    // Break the vector index underneath the worker, as a corrupted disk would.
    const db = new Database(path.join(h.dataDir, 'docshelf.sqlite'));
    const vectorTables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'vector_keys%'")
      .all() as { name: string }[];
    expect(vectorTables.length).toBeGreaterThan(0);
    db.exec('DROP TABLE vector_keys');
    db.close();

    const ingest = await request(h.app)
      .post('/api/ingest')
      .set(auth)
      .send({ libraryId: 'broken', name: 'B', chunks: makeChunks(2) })
      .expect(500);
    expect(ingest.body).toEqual({
      error: expect.stringMatching(/^Internal error \(errorId [0-9a-f-]{36}\)$/),
      code: 'INTERNAL',
    });
    const embed = await request(h.app).post('/api/embed').set(auth).send({ libraryId: 'broken' }).expect(500);
    expect(embed.body.code).toBe('INTERNAL');
  });
});

describe('a job that no worker picks up', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ WORKER_QUEUES: 'delete', JOB_WAIT_TIMEOUT_MS: '700' });
  });
  afterAll(async () => h.close());

  it('answers 504 with the job id once the wait times out', async () => {
    const key = await h.createKey('admin');
    const res = await request(h.app)
      .post('/api/ingest')
      .set('Authorization', `Bearer ${key}`)
      .send({ libraryId: 'slow', name: 'Slow', chunks: makeChunks(1) })
      .expect(504);
    expect(res.body).toEqual({ error: expect.any(String), code: 'JOB_TIMEOUT', jobId: expect.any(String) });
  });
});
