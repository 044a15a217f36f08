import request from 'supertest';
import { makeChunks, startHarness, type Harness } from '@docshelf/testing/e2e/harness';

describe('libraries: list, get, delete, restart persistence', () => {
  let h: Harness;
  let adminKey: string;
  beforeAll(async () => {
    h = await startHarness();
    adminKey = await h.createKey('admin');
  });
  afterAll(async () => h.close());

  const ingest = (body: object) =>
    request(h.app).post('/api/ingest').set('Authorization', `Bearer ${adminKey}`).send(body).expect(200);

  it('lists every library without auth', async () => {
    await ingest({ libraryId: 'list/a', name: 'A', chunks: makeChunks(2) });
    await ingest({ libraryId: 'list/b', name: 'B', sourceType: 'html', chunks: makeChunks(3) });
    const res = await request(h.app).get('/api/libraries').expect(200);
    const byId = Object.fromEntries(res.body.libraries.map((l: { id: string }) => [l.id, l]));
    expect(byId['list/a']).toMatchObject({ name: 'A', chunkCount: 2, sourceType: 'llms_txt' });
    expect(byId['list/b']).toMatchObject({ name: 'B', chunkCount: 3, sourceType: 'html' });
    for (const library of res.body.libraries) {
      expect(Object.keys(library).sort()).toEqual(
        expect.arrayContaining(['chunkCount', 'createdAt', 'id', 'name', 'ownerId', 'sourceType', 'updatedAt']),
      );
    }
  });

  it('says how many chunks of each library have a vector (vectorCount), in the list and for one library', async () => {
    await ingest({ libraryId: 'share/embedded', name: 'Embedded', chunks: makeChunks(4) });
    await ingest({ libraryId: 'share/later', name: 'Later', chunks: makeChunks(60) });
    const list = await request(h.app).get('/api/libraries').expect(200);
    const byId = Object.fromEntries(list.body.libraries.map((l: { id: string }) => [l.id, l]));
    expect(byId['share/embedded']).toMatchObject({ chunkCount: 4, vectorCount: 4 });
    // Over 50 chunks an ingestion is not embedded; /api/embed embeds the rest.
    expect(byId['share/later']).toMatchObject({ chunkCount: 60, vectorCount: 0 });
    await request(h.app)
      .post('/api/embed')
      .set('Authorization', `Bearer ${adminKey}`)
      .send({ libraryId: 'share/later', limit: 25 })
      .expect(200);
    const one = await request(h.app).get('/api/libraries/share/later').expect(200);
    expect(one.body.library).toMatchObject({ chunkCount: 60, vectorCount: 25 });
    const filtered = await request(h.app).get('/api/libraries?q=later').expect(200);
    expect(filtered.body.libraries[0]).toMatchObject({ id: 'share/later', vectorCount: 25 });
  });

  it('reaches a slashed id raw and percent-encoded; unknown ids are 404; invalid ids are 400', async () => {
    await ingest({ libraryId: 'vercel/next.js', name: 'Next.js', chunks: makeChunks(1) });
    const raw = await request(h.app).get('/api/libraries/vercel/next.js').expect(200);
    const encoded = await request(h.app).get('/api/libraries/vercel%2Fnext.js').expect(200);
    expect(encoded.body).toEqual(raw.body);
    const missing = await request(h.app).get('/api/libraries/vercel/nope').expect(404);
    expect(missing.body).toEqual({ error: "Library 'vercel/nope' not found", code: 'LIBRARY_NOT_FOUND' });
    await request(h.app).get('/api/libraries/a%20b').expect(400);
    await request(h.app).delete('/api/libraries/vercel/nope').set('Authorization', `Bearer ${adminKey}`).expect(404);
  });

  it('delete removes chunks, vectors and backups, and needs an admin credential by default', async () => {
    await ingest({ libraryId: 'gone/soon', name: 'Gone', chunks: makeChunks(5) });
    await ingest({ libraryId: 'gone', name: 'Prefix sibling', chunks: makeChunks(2) });
    expect(await h.adapters.vectors.count('gone/soon')).toBe(5);
    expect(await h.adapters.backups.list('gone/soon')).toHaveLength(1);

    await request(h.app).delete('/api/libraries/gone/soon').expect(401);
    const read = await h.createKey('read');
    await request(h.app).delete('/api/libraries/gone/soon').set('Authorization', `Bearer ${read}`).expect(403);

    await request(h.app)
      .delete('/api/libraries/gone/soon')
      .set('Authorization', `Bearer ${adminKey}`)
      .expect(200, { success: true });
    await request(h.app).get('/api/libraries/gone/soon').expect(404);
    expect(await h.adapters.libraries.countChunks('gone/soon')).toBe(0);
    expect(await h.adapters.vectors.count('gone/soon')).toBe(0);
    expect(await h.adapters.backups.list('gone/soon')).toEqual([]);

    // The library whose id is a prefix of the deleted one is untouched.
    expect(await h.adapters.vectors.count('gone')).toBe(2);
    expect(await h.adapters.backups.list('gone')).toHaveLength(1);
    await request(h.app).get('/api/libraries/gone').expect(200);
  });

  it('keeps libraries, chunks, vectors, users and keys across a restart on the same DATA_DIR', async () => {
    await ingest({ libraryId: 'durable', name: 'Durable', chunks: makeChunks(7) });
    const before = (await request(h.app).get('/api/libraries/durable').expect(200)).body;
    await h.restart();
    const after = (await request(h.app).get('/api/libraries/durable').expect(200)).body;
    expect(after).toEqual(before);
    expect(await h.adapters.vectors.count('durable')).toBe(7);
    await request(h.app)
      .post('/api/embed')
      .set('Authorization', `Bearer ${adminKey}`)
      .send({ libraryId: 'durable' })
      .expect(200);
  });
});

describe('DELETE /api/libraries/:id with PUBLIC_LIBRARY_DELETE=true', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ PUBLIC_LIBRARY_DELETE: 'true' });
  });
  afterAll(async () => h.close());

  it('deletes without credentials, as the bare contract describes', async () => {
    const key = await h.createKey('admin');
    await request(h.app)
      .post('/api/ingest')
      .set('Authorization', `Bearer ${key}`)
      .send({ libraryId: 'open', name: 'Open', chunks: makeChunks(1) })
      .expect(200);
    await request(h.app).delete('/api/libraries/open').expect(200, { success: true });
    await request(h.app).get('/api/libraries/open').expect(404);
  });
});
