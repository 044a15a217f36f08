import os from 'node:os';
import { Queue } from 'bullmq';
import request from 'supertest';
import { DOCS_SITE, serveFixtures, type FixtureServer } from '@docshelf/testing/e2e/fixture-site';
import { REDIS_URL, startHarness, type Harness } from '@docshelf/testing/e2e/harness';
import { signalAndWait, spawnWorker, type WorkerProcess } from '@docshelf/testing/e2e/ops-processes';

const words = 'gauge chart series axis legend tooltip render stream widget layout'.split(' ');
const generatedPage = (n: number) =>
  `<!DOCTYPE html><html><head><title>Generated ${n}</title></head><body><main><h1>Generated page ${n}</h1><p>${Array.from(
    { length: 90 },
    (_, i) => words[(i * 7 + n) % words.length],
  ).join(' ')} page${n}</p></main></body></html>`;

describe('the 500-chunk embedding threshold of crawls', () => {
  let h: Harness;
  let site: FixtureServer;
  beforeAll(async () => {
    // 501 pages of one local host: politeness (10 pages/s by default) would make this a test of waiting.
    h = await startHarness({
      PRIVATE_HOST_ALLOWLIST: '127.0.0.1',
      WORKER_CONCURRENCY_CRAWL: '8',
      CRAWL_HOST_PAGES_PER_SECOND: '0',
    });
    site = await serveFixtures({
      routes: (req, res) => {
        const match = /^\/gen\/(\d+)\.html$/.exec(req.url ?? '');
        if (!match) return false;
        res.writeHead(200, { 'content-type': 'text/html' }).end(generatedPage(Number(match[1])));
        return true;
      },
    });
  });
  afterAll(async () => {
    await site.close();
    await h.close();
  });

  it('embeds a crawled library of 500 chunks and not one of 501', async () => {
    const key = await h.createKey('admin');
    const crawlPages = (from: number, to: number) =>
      request(h.app)
        .post('/api/crawl')
        .set('Authorization', `Bearer ${key}`)
        .send({
          libraryId: 'threshold',
          name: 'Threshold',
          renderer: 'http',
          urls: Array.from({ length: to - from }, (_, i) => `${site.origin}/gen/${from + i}.html`),
        })
        .expect(200);

    for (const [from, to] of [
      [0, 150],
      [150, 300],
      [300, 450],
      [450, 500],
    ] as const) {
      const res = await crawlPages(from, to);
      expect(res.body).toMatchObject({
        pagesCrawled: to - from,
        chunksIngested: to - from,
        vectorized: true,
        errors: [],
      });
    }
    expect(await h.adapters.libraries.countChunks('threshold')).toBe(500);
    expect(await h.adapters.vectors.count('threshold')).toBe(500);

    const over = await crawlPages(500, 501);
    expect(over.body).toMatchObject({ chunksIngested: 1, vectorized: false });
    expect(await h.adapters.libraries.countChunks('threshold')).toBe(501);
    expect(await h.adapters.vectors.count('threshold')).toBe(500);
  });
});

describe('two crawl worker processes share one crawl', () => {
  let h: Harness;
  let site: FixtureServer;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    // This process serves every queue but crawl; two separate worker processes serve only crawl.
    h = await startHarness({ PRIVATE_HOST_ALLOWLIST: '127.0.0.1', WORKER_QUEUES: 'embed,backup,delete,ingest' });
    // A slow site, so that both workers are busy at once.
    site = await serveFixtures({ root: DOCS_SITE, delayMs: 150 });
    const env = {
      REDIS_URL,
      QUEUE_PREFIX: h.prefix,
      DATA_DIR: h.dataDir,
      HOST: '127.0.0.1',
      PRIVATE_HOST_ALLOWLIST: '127.0.0.1',
      WORKER_QUEUES: 'crawl',
      WORKER_CONCURRENCY_CRAWL: '1',
      LOG_LEVEL: 'warn',
    };
    workers.push(...(await Promise.all([spawnWorker(env), spawnWorker(env)])));
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => signalAndWait(w, 'SIGTERM')));
    await site.close();
    await h.close();
  });

  it('both workers take pages and the result equals a single-worker crawl', async () => {
    const crawlSite = async (harness: Harness) =>
      request(harness.app)
        .post('/api/crawl')
        .set('Authorization', `Bearer ${await harness.createKey('admin')}`)
        .send({ libraryId: 'shared', name: 'Shared', urls: [`${site.origin}/index.html`] })
        .expect(200);
    const res = await crawlSite(h);
    expect(res.body).toMatchObject({ pagesDiscovered: 7, pagesCrawled: 5 });

    const queue = new Queue('crawl', { connection: { url: REDIS_URL }, prefix: h.prefix });
    const jobs = await queue.getJobs(['completed', 'failed']);
    await queue.close();
    const processors = new Set(jobs.map((job) => job.processedBy));
    expect(jobs).toHaveLength(6);
    expect(processors.size).toBe(2);
    expect(processors).not.toContain(`${os.hostname()}:${process.pid}`);

    const single = await startHarness({ PRIVATE_HOST_ALLOWLIST: '127.0.0.1' });
    try {
      const alone = await crawlSite(single);
      expect(alone.body).toEqual(res.body);
      const strip = (chunks: { id: string; title?: string; content: string; url?: string }[]) =>
        chunks.map(({ id, title, content, url }) => ({ id, title, content, url }));
      expect(strip(await single.adapters.libraries.listChunks('shared', { offset: 0, limit: 1_000 }))).toEqual(
        strip(await h.adapters.libraries.listChunks('shared', { offset: 0, limit: 1_000 })),
      );
    } finally {
      await single.close();
    }
  });
});
