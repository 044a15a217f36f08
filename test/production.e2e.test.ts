import { gunzipSync } from 'node:zlib';
import request from 'supertest';
import { startGcsEmulator, type GcsEmulator } from '@docshelf/testing/fakes/gcs-emulator';
import { startOpenAiFake, type OpenAiFake } from '@docshelf/testing/fakes/openai-fake';
import { startPineconeFake, type PineconeFake } from '@docshelf/testing/fakes/pinecone-fake';
import { makeChunks, startHarness, type Harness } from '@docshelf/testing/e2e/harness';

const DIMENSIONS = 256;
const mongoUri = process.env.MONGODB_URI;
const recordsTarget = mongoUri
  ? 'MongoDB at MONGODB_URI'
  : 'SQLite (no MongoDB server here: set MONGODB_URI to use one)';

/**
 * The service (Express app + BullMQ worker in this process, real Redis) on its production adapters: OpenAI embeddings
 * and Pinecone served by their HTTP fakes, GCS by an emulator, all on 127.0.0.1.
 */
describe('the service on the production adapters', () => {
  let h: Harness;
  let openai: OpenAiFake;
  let pinecone: PineconeFake;
  let gcs: GcsEmulator;
  let adminKey: string;

  beforeAll(async () => {
    [openai, pinecone, gcs] = await Promise.all([
      startOpenAiFake(),
      startPineconeFake({ dimension: DIMENSIONS }),
      startGcsEmulator(),
    ]);
    console.log(
      `production e2e: embedder openai → HTTP fake; vectors pinecone → HTTP fake; backups gcs → ${gcs.description}; records → ${recordsTarget}`,
    );
    await gcs.createBucket('docshelf-e2e');
    h = await startHarness({
      ...(mongoUri ? { RECORD_STORE: 'mongo', MONGODB_URI: mongoUri } : {}),
      EMBEDDER: 'openai',
      OPENAI_API_KEY: openai.apiKey,
      OPENAI_BASE_URL: openai.baseUrl,
      OPENAI_EMBEDDING_DIMENSIONS: String(DIMENSIONS),
      VECTOR_INDEX: 'pinecone',
      PINECONE_API_KEY: pinecone.apiKey,
      PINECONE_INDEX_HOST: pinecone.url,
      BACKUP_STORAGE: 'gcs',
      GCS_BUCKET: 'docshelf-e2e',
      GCS_API_ENDPOINT: gcs.endpoint,
      GCS_PROJECT_ID: 'demo-docshelf',
    });
    adminKey = await h.createKey('admin');
  });

  afterAll(async () => {
    await h?.close();
    await Promise.all([openai?.close(), pinecone?.close(), gcs?.stop()]);
  });

  const ingest = (body: object) =>
    request(h.app).post('/api/ingest').set('Authorization', `Bearer ${adminKey}`).send(body);

  it('ingests and embeds a small library through OpenAI into Pinecone and backs it up to GCS', async () => {
    const res = await ingest({
      libraryId: 'acme/widgets',
      name: 'Acme Widgets',
      chunks: makeChunks(12, { tag: 'widgets' }),
    }).expect(200);
    expect(res.body).toEqual({ success: true, libraryId: 'acme/widgets', chunksIngested: 12, vectorized: true });
    expect(openai.requests.filter((r) => r.status === 200).reduce((n, r) => n + r.inputs, 0)).toBe(12);
    expect(pinecone.namespaces.get('acme/widgets')?.size).toBe(12);
    expect(await h.adapters.vectors.count('acme/widgets')).toBe(12);

    const names = await h.adapters.backups.list('acme/widgets');
    expect(names).toHaveLength(1);
    const snapshot = JSON.parse(
      gunzipSync(await h.adapters.backups.read('acme/widgets', names[0] as string)).toString(),
    );
    expect(snapshot.chunks).toHaveLength(12);

    const got = await request(h.app).get('/api/libraries/acme/widgets').expect(200);
    expect(got.body.library).toMatchObject({
      chunkCount: 12,
      embeddingModel: 'text-embedding-3-small',
      embeddingDimensions: DIMENSIONS,
    });
    expect(got.body.chunks).toHaveLength(12);
  });

  it('walks POST /api/embed through a library too large to embed on ingest', async () => {
    await ingest({ libraryId: 'acme/big', name: 'Big', chunks: makeChunks(120, { tag: 'big' }) })
      .expect(200)
      .expect((res) => expect(res.body.vectorized).toBe(false));
    expect(await h.adapters.vectors.count('acme/big')).toBe(0);
    let offset: number | null = 0;
    const pages: number[] = [];
    while (offset !== null) {
      const res: request.Response = await request(h.app)
        .post('/api/embed')
        .set('Authorization', `Bearer ${adminKey}`)
        .send({ libraryId: 'acme/big', offset, limit: 50 })
        .expect(200);
      pages.push(res.body.processed);
      offset = res.body.nextOffset;
    }
    expect(pages).toEqual([50, 50, 20]);
    expect(await h.adapters.vectors.count('acme/big')).toBe(120);
  });

  it('deletes a library: its Pinecone namespace, its GCS objects and its records', async () => {
    await request(h.app)
      .delete('/api/libraries/acme/widgets')
      .set('Authorization', `Bearer ${adminKey}`)
      .expect(200, { success: true });
    expect(pinecone.namespaces.has('acme/widgets')).toBe(false);
    expect(pinecone.requests.some((r) => r.method === 'DELETE' && r.path === '/namespaces/acme%2Fwidgets')).toBe(true);
    expect(await h.adapters.backups.list('acme/widgets')).toEqual([]);
    await request(h.app).get('/api/libraries/acme/widgets').expect(404);
    expect(await h.adapters.vectors.count('acme/big')).toBe(120);
  });
});
