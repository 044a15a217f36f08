import path from 'node:path';
import Database from 'better-sqlite3';
import request from 'supertest';
import { startOpenAiFake, type OpenAiFake } from '@docshelf/testing/fakes/openai-fake';
import { serveFixtures, type FixtureServer } from '@docshelf/testing/e2e/fixture-site';
import { startHarness, type Harness } from '@docshelf/testing/e2e/harness';
import { recordFigure } from '@docshelf/testing/reliability/figures';

const chunksOf = (tag: string, count: number) =>
  Array.from({ length: count }, (_, i) => ({
    id: `${tag}-${i}`,
    title: `${tag} section ${i}`,
    content: `${tag} ${tag}word${i} explains ${tag} topic number ${i} in a few words of its own.`,
    url: `https://docs.example.com/${tag}/${i}`,
  }));

/** What a reader of the library sees: its fields, its chunks and what search finds. */
async function snapshot(h: Harness, auth: Record<string, string>, libraryId: string) {
  const library = await request(h.app).get(`/api/libraries/${libraryId}`).expect(200);
  const search = await request(h.app)
    .get('/api/search')
    .query({ q: 'topic words', libraryId, limit: 50 })
    .set(auth)
    .expect(200);
  return {
    library: library.body.library,
    chunks: library.body.chunks.map((c: { id: string }) => c.id),
    found: search.body.results.map((r: { chunkId: string }) => r.chunkId).sort(),
    mode: search.body.mode,
  };
}

/** Rows a replacement left behind under its staging id, read straight from the SQLite file. */
function stagedLeftovers(h: Harness): number {
  const db = new Database(path.join(h.config.dataDir, 'docshelf.sqlite'), { readonly: true });
  try {
    const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    return (
      count("SELECT COUNT(*) AS n FROM libraries WHERE id LIKE '~%'") +
      count("SELECT COUNT(*) AS n FROM chunks WHERE library_id LIKE '~%'") +
      count("SELECT COUNT(*) AS n FROM vector_keys WHERE library_id LIKE '~%'")
    );
  } finally {
    db.close();
  }
}

describe('a replacement that fails midway leaves the library exactly as it was (API + worker + Redis + SQLite)', () => {
  let h: Harness;
  let openai: OpenAiFake;
  let auth: { Authorization: string };

  beforeAll(async () => {
    openai = await startOpenAiFake();
    h = await startHarness({
      EMBEDDER: 'openai',
      OPENAI_API_KEY: openai.apiKey,
      OPENAI_BASE_URL: openai.baseUrl,
      OPENAI_EMBEDDING_DIMENSIONS: '256',
      OPENAI_MAX_RETRIES: '0',
    });
    auth = { Authorization: `Bearer ${await h.createKey('admin')}` };
  });
  afterAll(async () => {
    await h.close();
    await openai.close();
  });

  it('keeps chunks, vectors and search as they were when the embedder is down during a replace', async () => {
    await request(h.app)
      .post('/api/ingest')
      .set(auth)
      .send({ libraryId: 'acme/stable', name: 'Stable', chunks: chunksOf('old', 5) })
      .expect(200);
    const before = await snapshot(h, auth, 'acme/stable');
    expect(before).toMatchObject({ chunks: chunksOf('old', 5).map((c) => c.id), mode: 'hybrid' });
    expect(await h.adapters.vectors.count('acme/stable')).toBe(5);

    openai.failNext(1_000, 503);
    const failed = await request(h.app)
      .post('/api/ingest')
      .set(auth)
      .send({ libraryId: 'acme/stable', name: 'Replaced', version: 'v2', replace: true, chunks: chunksOf('new', 3) });
    expect(failed.status).toBeGreaterThanOrEqual(500);
    // While the embedder is down, search still answers, by keyword alone, from the library as it was.
    const during = await snapshot(h, auth, 'acme/stable');
    expect(during).toEqual({ ...before, mode: 'keyword' });
    openai.recover();

    const afterFailure = await snapshot(h, auth, 'acme/stable');
    const vectorsAfterFailure = await h.adapters.vectors.count('acme/stable');
    recordFigure({
      scenario: 'atomic replace: embedder down midway',
      requests: 4,
      faults: 1,
      serverErrors: failed.status >= 500 ? 1 : 0,
      rowsLost: before.chunks.length - afterFailure.chunks.length + (5 - vectorsAfterFailure),
      duplicates: stagedLeftovers(h),
      note: `failed replace answered ${failed.status} (${failed.body.code}); library unchanged: ${JSON.stringify(afterFailure) === JSON.stringify(before)}`,
    });
    expect(afterFailure).toEqual(before);
    expect(vectorsAfterFailure).toBe(5);
    expect(stagedLeftovers(h)).toBe(0);

    // Once the embedder is back, the same replacement goes through whole.
    await request(h.app)
      .post('/api/ingest')
      .set(auth)
      .send({ libraryId: 'acme/stable', name: 'Replaced', version: 'v2', replace: true, chunks: chunksOf('new', 3) })
      .expect(200);
    const after = await snapshot(h, auth, 'acme/stable');
    expect(after).toMatchObject({
      chunks: chunksOf('new', 3).map((c) => c.id),
      found: chunksOf('new', 3)
        .map((c) => c.id)
        .sort(),
    });
    expect(after.library).toMatchObject({
      name: 'Replaced',
      version: 'v2',
      chunkCount: 3,
      createdAt: before.library.createdAt,
    });
    expect(await h.adapters.vectors.count('acme/stable')).toBe(3);
    expect(stagedLeftovers(h)).toBe(0);
  }, 60_000);
});

describe('replacing a library as readers watch it (API + worker + Redis + SQLite, local-lsi-v1)', () => {
  let h: Harness;
  let auth: { Authorization: string };
  let site: FixtureServer;

  beforeAll(async () => {
    h = await startHarness({ PRIVATE_HOST_ALLOWLIST: '127.0.0.1' });
    auth = { Authorization: `Bearer ${await h.createKey('admin')}` };
    site = await serveFixtures({ routes: (req, res) => (res.writeHead(500).end('broken'), true) });
  });
  afterAll(async () => {
    await site.close();
    await h.close();
  });

  it('shows every reader the whole old library or the whole new one, never a mix', async () => {
    const oldIds = new Set(chunksOf('old', 40).map((c) => c.id));
    const newIds = new Set(chunksOf('new', 40).map((c) => c.id));
    await request(h.app)
      .post('/api/ingest')
      .set(auth)
      .send({ libraryId: 'acme/watched', name: 'Watched', chunks: chunksOf('old', 40) })
      .expect(200);

    let replacing = true;
    let reads = 0;
    const seen = { old: 0, new: 0, mixed: [] as string[][] };
    const watch = (async () => {
      while (replacing) {
        const { chunks, found } = await snapshot(h, auth, 'acme/watched');
        reads += 2;
        for (const ids of [chunks as string[], found as string[]]) {
          if (ids.length > 0 && ids.every((id) => oldIds.has(id))) seen.old++;
          else if (ids.length > 0 && ids.every((id) => newIds.has(id))) seen.new++;
          else seen.mixed.push(ids);
        }
        if (chunks.length !== 40) seen.mixed.push(chunks);
      }
    })();
    await request(h.app)
      .post('/api/ingest')
      .set(auth)
      .send({ libraryId: 'acme/watched', name: 'Watched', replace: true, chunks: chunksOf('new', 40) })
      .expect(200);
    replacing = false;
    await watch;

    recordFigure({
      scenario: 'atomic replace: readers during a replace',
      requests: reads + 2,
      faults: 0,
      serverErrors: 0,
      rowsLost: 0,
      duplicates: 0,
      note: `${seen.old} views of the old library, ${seen.new} of the new, ${seen.mixed.length} mixed`,
    });
    expect(seen.mixed).toEqual([]);
    expect(seen.old).toBeGreaterThan(0);
    const after = await snapshot(h, auth, 'acme/watched');
    expect(after.chunks).toEqual([...newIds]);
    expect(after.mode).toBe('hybrid');
    expect(await h.adapters.vectors.count('acme/watched')).toBe(40);
    expect(stagedLeftovers(h)).toBe(0);
  }, 60_000);

  it('keeps the library when a re-crawl with replace gets an error on every page', async () => {
    await request(h.app)
      .post('/api/ingest')
      .set(auth)
      .send({ libraryId: 'acme/crawled', name: 'Crawled', chunks: chunksOf('old', 3) })
      .expect(200);
    const before = await snapshot(h, auth, 'acme/crawled');
    const res = await request(h.app)
      .post('/api/crawl')
      .set(auth)
      .send({
        libraryId: 'acme/crawled',
        name: 'Crawled',
        urls: [`${site.origin}/a.html`, `${site.origin}/b.html`],
        replace: true,
        renderer: 'http',
      })
      .expect(400);
    expect(res.body.code).toBe('NO_CONTENT');
    const after = await snapshot(h, auth, 'acme/crawled');
    recordFigure({
      scenario: 'atomic replace: every page an error',
      requests: 4,
      faults: 2,
      serverErrors: 0,
      rowsLost: before.chunks.length - after.chunks.length,
      duplicates: stagedLeftovers(h),
      note: 're-crawl with replace answered 400 NO_CONTENT',
    });
    expect(after).toEqual(before);
    expect(stagedLeftovers(h)).toBe(0);
  }, 60_000);
});
