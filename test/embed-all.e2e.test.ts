import request from 'supertest';
import { generateDocsSite } from './fixtures/generated-docs-site';
import { serveFixtures, type FixtureServer } from '@docshelf/testing/e2e/fixture-site';
import { makeChunks, startHarness, type Harness } from '@docshelf/testing/e2e/harness';
import { openEventStream, type SseEvent } from '@docshelf/testing/e2e/sse';

/** Pages of the generated site crawled: one chunk a topic page and a few for the index, past the 500-chunk limit. */
const CRAWL_PAGES = 520;
/** Sections of a generated llms.txt: one chunk each, plus its header, past the 500-chunk limit of ingest-url. */
const LLMS_SECTIONS = 520;

const llmsTxt = `# Bigdocs\n\n> A reference with many sections.\n\n${Array.from(
  { length: LLMS_SECTIONS },
  (_, i) => `## Section ${i}\n\n- [Entry ${i}](https://bigdocs.test/entry-${i}.html): about subject${i}\n`,
).join('\n')}`;

/** embedAll on the three ingestions and POST /api/embed { all: true } (API + real worker + Redis + SQLite). */
describe('embedding every chunk without a client loop', () => {
  const SITE = generateDocsSite({ pages: CRAWL_PAGES });
  let h: Harness;
  let site: FixtureServer;
  let auth: { Authorization: string };
  let baseUrl: string;

  beforeAll(async () => {
    // Hundreds of pages of one local host: politeness would make the crawl a test of waiting.
    h = await startHarness({
      PRIVATE_HOST_ALLOWLIST: '127.0.0.1',
      CRAWL_HOST_PAGES_PER_SECOND: '0',
      WORKER_CONCURRENCY_CRAWL: '8',
    });
    auth = { Authorization: `Bearer ${await h.createKey('admin')}` };
    site = await serveFixtures({
      routes: (req, res) => {
        if (req.url !== '/big/llms.txt') return SITE.route(req, res);
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(llmsTxt);
        return true;
      },
    });
    baseUrl = await h.baseUrl();
  });
  afterAll(async () => {
    await site.close();
    await h.close();
  });

  const ingest = (body: object) => request(h.app).post('/api/ingest').set(auth).send(body);
  const embed = (body: object) => request(h.app).post('/api/embed').set(auth).send(body);
  const vectorsOf = (libraryId: string) => h.adapters.vectors.count(libraryId);
  const chunksOf = (libraryId: string) => h.adapters.libraries.countChunks(libraryId);
  const jobsOf = async (libraryId: string) =>
    (await request(h.app).get(`/api/jobs?libraryId=${libraryId}`).set(auth).expect(200)).body.jobs;

  /** A library of `count` chunks without vectors. */
  const ingestUnembedded = async (libraryId: string, count: number) =>
    ingest({ libraryId, name: libraryId, chunks: makeChunks(count, { words: 20 }), skipEmbeddings: true }).expect(200);

  it('ingest with embedAll embeds all 120 chunks; without it, as the contract says, none', async () => {
    const all = await ingest({ libraryId: 'ingest/all', name: 'All', chunks: makeChunks(120), embedAll: true });
    expect(all.status).toBe(200);
    expect(all.body).toEqual({ success: true, libraryId: 'ingest/all', chunksIngested: 120, vectorized: true });
    expect(await vectorsOf('ingest/all')).toBe(120);
    const library = (await request(h.app).get('/api/libraries/ingest/all').expect(200)).body.library;
    expect(library).toMatchObject({ chunkCount: 120, vectorCount: 120 });

    const plain = await ingest({ libraryId: 'ingest/plain', name: 'Plain', chunks: makeChunks(120) }).expect(200);
    expect(plain.body).toMatchObject({ chunksIngested: 120, vectorized: false });
    expect(await vectorsOf('ingest/plain')).toBe(0);
  });

  it('refuses embedAll with skipEmbeddings on ingest: 400 naming both fields, nothing written', async () => {
    const res = await ingest({
      libraryId: 'ingest/contradiction',
      name: 'Contradiction',
      chunks: makeChunks(3),
      embedAll: true,
      skipEmbeddings: true,
    }).expect(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', error: expect.stringContaining('skipEmbeddings') });
    expect(res.body.details.map((d: { path: string }) => d.path).sort()).toEqual(['embedAll', 'skipEmbeddings']);
    await request(h.app).get('/api/libraries/ingest/contradiction').expect(404);
    expect(await jobsOf('ingest/contradiction')).toEqual([]);
  });

  it('refuses a non-boolean embedAll or all with 400, writing and fetching nothing', async () => {
    const cookie = await h.login();
    const fetchedBefore = site.requests.length;
    const answers = [
      await ingest({ libraryId: 'bad/ingest', name: 'Bad', chunks: makeChunks(2), embedAll: 1 }),
      await request(h.app)
        .post('/api/crawl')
        .set(auth)
        .send({ libraryId: 'bad/crawl', name: 'Bad', urls: [`${site.origin}${SITE.indexPath}`], embedAll: 1 }),
      await request(h.app)
        .post('/api/ingest-url')
        .set('Cookie', cookie)
        .send({
          libraryId: 'bad/url',
          name: 'Bad',
          sourceUrl: `${site.origin}/big/llms.txt`,
          sourceType: 'llms_txt',
          embedAll: 'yes',
        }),
    ];
    for (const res of answers) {
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [expect.objectContaining({ path: 'embedAll' })],
      });
    }
    for (const libraryId of ['bad/ingest', 'bad/crawl', 'bad/url']) {
      await request(h.app).get(`/api/libraries/${libraryId}`).expect(404);
      expect(await jobsOf(libraryId)).toEqual([]);
    }
    expect(site.requests.length).toBe(fetchedBefore);

    await ingestUnembedded('bad/embed', 10);
    const yes = await embed({ libraryId: 'bad/embed', all: 'yes' }).expect(400);
    expect(yes.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [expect.objectContaining({ path: 'all' })] });
    const offset = await embed({ libraryId: 'bad/embed', all: true, offset: 5 }).expect(400);
    expect(offset.body.details.map((d: { path: string }) => d.path).sort()).toEqual(['all', 'offset']);
    expect(await vectorsOf('bad/embed')).toBe(0);
    expect((await jobsOf('bad/embed')).filter((j: { type: string }) => j.type === 'embed')).toEqual([]);
  });

  it(`crawl with embedAll embeds a library past 500 chunks (${CRAWL_PAGES} pages)`, async () => {
    const res = await request(h.app)
      .post('/api/crawl')
      .set(auth)
      .send({
        libraryId: 'crawl/all',
        name: 'Widgetry',
        urls: [`${site.origin}${SITE.indexPath}`],
        maxPages: CRAWL_PAGES,
        embedAll: true,
      })
      .expect(200);
    expect(res.body).toMatchObject({ pagesCrawled: CRAWL_PAGES, vectorized: true, errors: [] });
    expect(res.body.chunksIngested).toBeGreaterThan(500);
    expect(await chunksOf('crawl/all')).toBe(res.body.chunksIngested);
    expect(await vectorsOf('crawl/all')).toBe(res.body.chunksIngested);
  }, 180_000);

  it('ingest-url with embedAll embeds an llms.txt past 500 chunks; without it, none', async () => {
    const cookie = await h.login();
    const ingestUrl = (libraryId: string, extra: object) =>
      request(h.app)
        .post('/api/ingest-url')
        .set('Cookie', cookie)
        .send({
          libraryId,
          name: 'Bigdocs',
          sourceUrl: `${site.origin}/big/llms.txt`,
          sourceType: 'llms_txt',
          ...extra,
        })
        .expect(200);
    const all = await ingestUrl('url/all', { embedAll: true });
    expect(all.body).toEqual({
      success: true,
      libraryId: 'url/all',
      chunksIngested: LLMS_SECTIONS + 1,
      vectorized: true,
    });
    expect(await vectorsOf('url/all')).toBe(LLMS_SECTIONS + 1);

    const plain = await ingestUrl('url/plain', {});
    expect(plain.body).toMatchObject({ chunksIngested: LLMS_SECTIONS + 1, vectorized: false });
    expect(await vectorsOf('url/plain')).toBe(0);
  });

  it('POST /api/embed { all: true } embeds a whole library in one call; a second call has nothing to do', async () => {
    await ingestUnembedded('embed/whole', 450);
    const first = await embed({ libraryId: 'embed/whole', all: true }).expect(200);
    expect(first.body).toEqual({
      libraryId: 'embed/whole',
      processed: 450,
      total: 450,
      offset: 0,
      nextOffset: null,
      done: true,
    });
    expect(await vectorsOf('embed/whole')).toBe(450);

    const again = await embed({ libraryId: 'embed/whole', all: true }).expect(200);
    expect(again.body).toEqual({ ...first.body, processed: 0 });
    expect(await vectorsOf('embed/whole')).toBe(450);
  });

  it('all: true on a partly embedded library embeds only the chunks without a vector', async () => {
    await ingestUnembedded('embed/part', 300);
    const page = await embed({ libraryId: 'embed/part', offset: 0, limit: 120 }).expect(200);
    expect(page.body).toMatchObject({ processed: 120, nextOffset: 120, done: false });
    expect(await vectorsOf('embed/part')).toBe(120);

    const rest = await embed({ libraryId: 'embed/part', all: true }).expect(200);
    expect(rest.body).toEqual({
      libraryId: 'embed/part',
      processed: 180,
      total: 300,
      offset: 0,
      nextOffset: null,
      done: true,
    });
    expect(await vectorsOf('embed/part')).toBe(300);
  });

  it('with Prefer: respond-async, the job reports phase "embed" with done rising to the chunks left', async () => {
    // A service of its own whose embed queue is served only once the event stream is open: a job that ended before
    // it was followed would send its final event alone, however fast the machine.
    const held = await startHarness({ WORKER_QUEUES: 'backup,delete,ingest,callbacks' });
    try {
      const heldAuth = { Authorization: `Bearer ${await held.createKey('admin')}` };
      const heldEmbed = (body: object) => request(held.app).post('/api/embed').set(heldAuth).send(body);
      // Indexing an ingestion runs on the embed queue too: served until the job to follow is submitted.
      const stopFirst = held.startWorker(['embed']);
      await request(held.app)
        .post('/api/ingest')
        .set(heldAuth)
        .send({
          libraryId: 'embed/async',
          name: 'embed/async',
          chunks: makeChunks(600, { words: 20 }),
          skipEmbeddings: true,
        })
        .expect(200);
      await heldEmbed({ libraryId: 'embed/async', limit: 100 }).expect(200);
      await stopFirst();

      const accepted = await heldEmbed({ libraryId: 'embed/async', all: true })
        .set('Prefer', 'respond-async')
        .expect(202);
      const { jobId } = accepted.body;
      const stream = await openEventStream(`${await held.baseUrl()}/api/jobs/${jobId}/events`, heldAuth);
      await stream.next((e) => e.event === 'progress');
      // A job of 500 chunks can end between two reads of its record: its embedding waits until the stream has shown
      // the phase, so there is a progress to see, however fast the machine.
      const shown = stream.next((e) => e.event === 'progress' && e.data.phase === 'embed');
      const embedder = held.adapters.embedder;
      const embedTexts = embedder.embed.bind(embedder);
      embedder.embed = async (texts, scope) => (await shown, embedTexts(texts, scope));
      const stopSecond = held.startWorker(['embed']);
      const events = await stream.ended;
      await stopSecond();
      await expectEmbedEvents(held, heldAuth, jobId, events);
    } finally {
      await held.close();
    }
  });

  /** What the async embed-all job of 'embed/async' (600 chunks, 100 embedded before) said as it ran, and its record. */
  const expectEmbedEvents = async (
    service: Harness,
    serviceAuth: Record<string, string>,
    jobId: string,
    events: SseEvent[],
  ) => {
    const result = { libraryId: 'embed/async', processed: 500, total: 600, offset: 0, nextOffset: null, done: true };
    expect(events[events.length - 1]).toEqual({ event: 'completed', data: result });

    const progress = events.filter((e) => e.event === 'progress').map((e) => e.data);
    const embedding = progress.filter((p) => p.phase === 'embed');
    expect(embedding.length).toBeGreaterThan(0);
    expect(embedding.every((p) => p.total === 500 && p.done <= p.total)).toBe(true);
    const done = embedding.map((p) => p.done);
    expect(done).toEqual([...done].sort((a, b) => a - b));
    expect(progress.every((p) => ['queued', 'embed'].includes(p.phase))).toBe(true);

    const job = (await request(service.app).get(`/api/jobs/${jobId}`).set(serviceAuth).expect(200)).body;
    expect(job).toMatchObject({ type: 'embed', state: 'completed', progress: { done: 500, total: 500 }, result });
    expect(await service.adapters.vectors.count('embed/async')).toBe(600);
  };

  it('a cancelled all: true job stops between batches; the next call embeds only what is left', async () => {
    await ingestUnembedded('embed/cancel', 3_000);
    const accepted = await embed({ libraryId: 'embed/cancel', all: true }).set('Prefer', 'respond-async').expect(202);
    const { jobId } = accepted.body;
    const stream = await openEventStream(`${baseUrl}/api/jobs/${jobId}/events`, auth);
    await stream.next((e) => e.event === 'progress' && e.data.phase === 'embed' && e.data.done > 0);
    const cancelled = await request(h.app).delete(`/api/jobs/${jobId}`).set(auth).expect(200);
    expect(cancelled.body).toMatchObject({ id: jobId, state: 'cancelled' });
    expect((await stream.ended).at(-1)).toMatchObject({ event: 'cancelled' });

    // The answer comes once the job has stopped: what it embedded is all it will embed.
    const embedded = await vectorsOf('embed/cancel');
    expect(embedded).toBeGreaterThan(0);
    expect(embedded).toBeLessThan(3_000);
    const rest = await embed({ libraryId: 'embed/cancel', all: true }).expect(200);
    expect(rest.body).toMatchObject({ processed: 3_000 - embedded, total: 3_000, done: true });
    expect(await vectorsOf('embed/cancel')).toBe(3_000);
  }, 120_000);

  it('answers 404 LIBRARY_NOT_FOUND for all: true on an unknown library, and creates nothing', async () => {
    const res = await embed({ libraryId: 'nope/missing', all: true }).expect(404);
    expect(res.body).toMatchObject({ code: 'LIBRARY_NOT_FOUND', error: expect.stringContaining('nope/missing') });
    await request(h.app).get('/api/libraries/nope/missing').expect(404);
    expect(await jobsOf('nope/missing')).toEqual([]);
  });
});
