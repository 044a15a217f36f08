import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import request from 'supertest';
import { readBackup } from '@docshelf/core';
import { makeChunks, startHarness, type Harness } from '@docshelf/testing/e2e/harness';

describe('POST /api/ingest and POST /api/embed (API + real worker + Redis + SQLite)', () => {
  let h: Harness;
  let adminKey: string;

  beforeAll(async () => {
    h = await startHarness();
    adminKey = await h.createKey('admin');
  });
  afterAll(async () => h.close());

  const ingest = (body: object) =>
    request(h.app).post('/api/ingest').set('Authorization', `Bearer ${adminKey}`).send(body);

  it('creates a library, stores every chunk, embeds a small payload and answers the spec shape', async () => {
    const res = await ingest({
      libraryId: 'acme/widgets',
      name: 'Acme Widgets',
      description: 'Widget docs',
      sourceUrl: 'https://acme.example/docs',
      version: '2.1',
      chunks: [
        {
          id: 'intro',
          title: 'Intro',
          content: 'Widgets are small reusable parts.',
          url: 'https://acme.example/intro',
          tokenCount: 7,
        },
        { id: 'install', content: 'Install widgets with npm install widgets.' },
      ],
    }).expect(200);
    expect(res.body).toEqual({ success: true, libraryId: 'acme/widgets', chunksIngested: 2, vectorized: true });

    const got = await request(h.app).get('/api/libraries/acme/widgets').expect(200);
    expect(got.body.library).toMatchObject({
      id: 'acme/widgets',
      name: 'Acme Widgets',
      description: 'Widget docs',
      sourceUrl: 'https://acme.example/docs',
      sourceType: 'llms_txt',
      version: '2.1',
      chunkCount: 2,
    });
    expect(got.body.library.ownerId).toEqual(expect.any(String));
    expect(new Date(got.body.library.createdAt).toISOString()).toBe(got.body.library.createdAt);
    expect(got.body.chunks).toEqual([
      { id: 'intro', title: 'Intro', url: 'https://acme.example/intro', tokenCount: 7 },
      { id: 'install', tokenCount: expect.any(Number) },
    ]);
    expect(got.body.chunks[1].tokenCount).toBeGreaterThan(4);
    expect(JSON.stringify(got.body)).not.toContain('reusable parts');
    expect(await h.adapters.vectors.count('acme/widgets')).toBe(2);
  });

  it('embeds automatically at exactly 50 chunks and not at 51', async () => {
    const fifty = await ingest({ libraryId: 'edge/fifty', name: 'Fifty', chunks: makeChunks(50) }).expect(200);
    expect(fifty.body).toMatchObject({ chunksIngested: 50, vectorized: true });
    expect(await h.adapters.vectors.count('edge/fifty')).toBe(50);

    const fiftyOne = await ingest({ libraryId: 'edge/fifty-one', name: 'Fifty-one', chunks: makeChunks(51) }).expect(
      200,
    );
    expect(fiftyOne.body).toMatchObject({ chunksIngested: 51, vectorized: false });
    expect(await h.adapters.vectors.count('edge/fifty-one')).toBe(0);
  });

  it('skipEmbeddings leaves a small payload without vectors', async () => {
    const res = await ingest({
      libraryId: 'edge/skip',
      name: 'Skip',
      chunks: makeChunks(3),
      skipEmbeddings: true,
    }).expect(200);
    expect(res.body.vectorized).toBe(false);
    expect(await h.adapters.vectors.count('edge/skip')).toBe(0);
  });

  it('update keeps other chunks and upserts by id; replace drops chunks and vectors not in the payload', async () => {
    await ingest({ libraryId: 'lib/modes', name: 'Modes v1', chunks: makeChunks(5, { tag: 'one' }) }).expect(200);
    expect(await h.adapters.vectors.count('lib/modes')).toBe(5);

    const update = await ingest({
      libraryId: 'lib/modes',
      name: 'Modes v2',
      chunks: [
        { id: 'c0001', content: 'rewritten second chunk' },
        { id: 'extra', content: 'a brand new chunk' },
      ],
    }).expect(200);
    expect(update.body.chunksIngested).toBe(2);
    let lib = (await request(h.app).get('/api/libraries/lib/modes').expect(200)).body;
    expect(lib.library).toMatchObject({ name: 'Modes v2', chunkCount: 6 });
    expect(lib.chunks.map((c: { id: string }) => c.id)).toEqual(['c0000', 'c0001', 'c0002', 'c0003', 'c0004', 'extra']);

    const replace = await ingest({
      libraryId: 'lib/modes',
      name: 'Modes v3',
      replace: true,
      chunks: [{ id: 'only', content: 'the only chunk left' }],
    }).expect(200);
    expect(replace.body).toMatchObject({ chunksIngested: 1, vectorized: true });
    lib = (await request(h.app).get('/api/libraries/lib/modes').expect(200)).body;
    expect(lib.library).toMatchObject({ name: 'Modes v3', chunkCount: 1 });
    expect(lib.chunks).toEqual([{ id: 'only', tokenCount: expect.any(Number) }]);
    expect(await h.adapters.vectors.count('lib/modes')).toBe(1);
  });

  it('an update without embedding removes the stale vectors of the chunks it changed', async () => {
    await ingest({ libraryId: 'lib/stale', name: 'Stale', chunks: makeChunks(4) }).expect(200);
    expect(await h.adapters.vectors.count('lib/stale')).toBe(4);
    await ingest({
      libraryId: 'lib/stale',
      name: 'Stale',
      skipEmbeddings: true,
      chunks: [{ id: 'c0000', content: 'changed text' }],
    }).expect(200);
    expect(await h.adapters.vectors.count('lib/stale')).toBe(3);
  });

  it('backs up each ingestion: a snapshot first, then increments of what changed, which restore the library', async () => {
    const backup = (libraryId: string, chunks: object[], extra: object = {}) =>
      ingest({ libraryId, name: 'Backup', chunks, ...extra }).expect(200);
    const readObject = async (name: string) =>
      JSON.parse(gunzipSync(await h.adapters.backups.read('lib/backup', name)).toString('utf8'));
    await backup('lib/backup', makeChunks(3));
    await backup('lib/backup', [{ id: 'later', content: 'added later' }]);
    const names = await h.adapters.backups.list('lib/backup');
    expect(names).toEqual([
      expect.stringMatching(/-[0-9a-f-]{36}\.json\.gz$/),
      expect.stringMatching(/\.increment\.json\.gz$/),
    ]);
    const [snapshot, increment] = [await readObject(names[0]!), await readObject(names[1]!)];
    expect(snapshot).toMatchObject({ format: 'docshelf-backup/v2', kind: 'snapshot' });
    expect(snapshot.chunks.map((c: { id: string }) => c.id)).toEqual(['c0000', 'c0001', 'c0002']);
    expect(snapshot.chunks[0].content).toContain('doc0word0');
    // The increment holds only what the second ingestion wrote, with the library as it then was.
    expect(increment).toMatchObject({ kind: 'increment', removedChunkIds: [] });
    expect(increment.library).toMatchObject({ id: 'lib/backup', name: 'Backup', chunkCount: 4 });
    expect(increment.chunks).toEqual([
      {
        id: 'later',
        content: 'added later',
        tokenCount: expect.any(Number),
        position: expect.any(Number),
        // When it was ingested and the hash of its text: a restore keeps them.
        fetchedAt: expect.any(String),
        contentHash: createHash('sha256').update('added later').digest('hex'),
      },
    ]);

    // A chunk sent again keeps its place; the backups restore exactly what the library holds.
    await backup('lib/backup', [
      { id: 'c0001', content: 'changed' },
      { id: 'last', content: 'the last one' },
    ]);
    const stored = await h.adapters.libraries.listChunks('lib/backup', { offset: 0, limit: 100 });
    const restored = await readBackup(h.adapters.backups, 'lib/backup');
    expect(restored?.objects).toHaveLength(3);
    expect(restored?.chunks).toEqual(stored.map(({ position: _p, bpeTokens: _b, ...chunk }) => chunk));
    expect(restored?.chunks.map((c) => c.id)).toEqual(['c0000', 'c0001', 'c0002', 'later', 'last']);
    expect(restored?.library).toMatchObject({ chunkCount: 5 });

    // A replacement starts the chain again with a snapshot of its own.
    await backup('lib/backup', [{ id: 'only', content: 'all there is' }], { replace: true });
    const afterReplace = await readBackup(h.adapters.backups, 'lib/backup');
    expect(afterReplace?.objects).toHaveLength(1);
    expect(afterReplace?.chunks).toEqual([
      {
        id: 'only',
        content: 'all there is',
        tokenCount: expect.any(Number),
        fetchedAt: expect.any(String),
        contentHash: expect.any(String),
      },
    ]);
  });

  it('walks /api/embed over 450 chunks: 200 + 200 + 50, exact offsets, done at the end', async () => {
    await ingest({ libraryId: 'big/walk', name: 'Walk', chunks: makeChunks(450, { words: 20 }) }).expect(200);
    expect(await h.adapters.vectors.count('big/walk')).toBe(0);

    const pages = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const res: request.Response = await request(h.app)
        .post('/api/embed')
        .set('Authorization', `Bearer ${adminKey}`)
        .send({ libraryId: 'big/walk', offset })
        .expect(200);
      pages.push(res.body);
      offset = res.body.nextOffset;
      expect(pages.length).toBeLessThanOrEqual(3);
    }
    expect(pages).toEqual([
      { libraryId: 'big/walk', processed: 200, total: 450, offset: 0, nextOffset: 200, done: false },
      { libraryId: 'big/walk', processed: 200, total: 450, offset: 200, nextOffset: 400, done: false },
      { libraryId: 'big/walk', processed: 50, total: 450, offset: 400, nextOffset: null, done: true },
    ]);
    expect(await h.adapters.vectors.count('big/walk')).toBe(450);
  });

  it('honours a custom limit and an offset past the end', async () => {
    await ingest({ libraryId: 'big/limit', name: 'Limit', chunks: makeChunks(60), skipEmbeddings: true }).expect(200);
    const auth = { Authorization: `Bearer ${adminKey}` };
    const first = await request(h.app)
      .post('/api/embed')
      .set(auth)
      .send({ libraryId: 'big/limit', limit: 25 })
      .expect(200);
    expect(first.body).toEqual({
      libraryId: 'big/limit',
      processed: 25,
      total: 60,
      offset: 0,
      nextOffset: 25,
      done: false,
    });
    const past = await request(h.app)
      .post('/api/embed')
      .set(auth)
      .send({ libraryId: 'big/limit', offset: 100 })
      .expect(200);
    expect(past.body).toEqual({
      libraryId: 'big/limit',
      processed: 0,
      total: 60,
      offset: 100,
      nextOffset: null,
      done: true,
    });
  });

  it('embed of an unknown library is 404 and of a missing libraryId is 400', async () => {
    const auth = { Authorization: `Bearer ${adminKey}` };
    const missing = await request(h.app).post('/api/embed').set(auth).send({ libraryId: 'nope/nothing' }).expect(404);
    expect(missing.body).toMatchObject({ code: 'LIBRARY_NOT_FOUND', error: expect.stringContaining('nope/nothing') });
    const bad = await request(h.app).post('/api/embed').set(auth).send({ limit: 5 }).expect(400);
    expect(bad.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'libraryId' })]));
  });

  it('a session works on ingest and embed too', async () => {
    const cookie = await h.login();
    await request(h.app)
      .post('/api/ingest')
      .set('Cookie', cookie)
      .send({ libraryId: 'by-session', name: 'Session', chunks: makeChunks(1) })
      .expect(200);
    await request(h.app).post('/api/embed').set('Cookie', cookie).send({ libraryId: 'by-session' }).expect(200);
  });
});
