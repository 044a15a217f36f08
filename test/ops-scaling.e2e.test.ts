import { makeChunks } from '@docshelf/testing/e2e/harness';
import { DOCS_SITE, serveFixtures, type FixtureServer } from '@docshelf/testing/e2e/fixture-site';
import {
  cleanUpOpsEnv,
  createKeyVia,
  loginCookie,
  opsEnv,
  postJson,
  spawnApi,
  spawnWorker,
  stopQuietly,
  workerReadiness,
  type ApiProcess,
  type WorkerProcess,
} from '@docshelf/testing/e2e/ops-processes';

const metricsOf = async (worker: WorkerProcess) => (await fetch(`${worker.healthUrl}/metrics`)).text();
const completedJobs = (output: string) =>
  output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { msg?: string; queue?: string; job?: string })
    .filter((l) => l.msg === 'job completed');

/** Operators scale queues separately: here one process serves only `crawl`, another everything else. */
describe('per-queue worker processes: a crawl-only worker beside one for the other queues', () => {
  const env = opsEnv({ PRIVATE_HOST_ALLOWLIST: '127.0.0.1' });
  let api: ApiProcess | undefined;
  let crawlOnly: WorkerProcess | undefined;
  let rest: WorkerProcess | undefined;
  let site: FixtureServer;
  let bearer: Record<string, string>;

  beforeAll(async () => {
    site = await serveFixtures({ root: DOCS_SITE });
    [api, crawlOnly, rest] = await Promise.all([
      spawnApi(env),
      spawnWorker({ ...env, WORKER_QUEUES: 'crawl', WORKER_CONCURRENCY_CRAWL: '2' }),
      spawnWorker({ ...env, WORKER_QUEUES: 'embed,backup,delete,ingest' }),
    ]);
    bearer = { authorization: `Bearer ${await createKeyVia(api.baseUrl, await loginCookie(api.baseUrl))}` };
  }, 60_000);

  afterAll(async () => {
    await Promise.all([stopQuietly(api), stopQuietly(crawlOnly), stopQuietly(rest)]);
    await site?.close();
    await cleanUpOpsEnv(env);
  });

  it('each worker reports the queues it serves', async () => {
    expect((await workerReadiness(crawlOnly!)).body.queues).toEqual([{ queue: 'crawl', running: true }]);
    expect((await workerReadiness(rest!)).body.queues.map((q: { queue: string }) => q.queue)).toEqual([
      'embed',
      'backup',
      'delete',
      'ingest',
    ]);
  });

  it('an ingest completes without the crawl worker, which takes no embed or backup job', async () => {
    const ingest = await postJson(
      `${api!.baseUrl}/api/ingest`,
      { libraryId: 'scale/ingest', name: 'Scaled', chunks: makeChunks(8) },
      bearer,
    );
    expect(ingest.body).toEqual({ success: true, libraryId: 'scale/ingest', chunksIngested: 8, vectorized: true });
    const del = await fetch(`${api!.baseUrl}/api/libraries/scale/ingest`, { method: 'DELETE', headers: bearer });
    expect(await del.json()).toEqual({ success: true });
    // The job's record says completed before its worker logs it: wait for the log line, not the response.
    await rest!.waitForOutput(/"job":"delete-library".*"msg":"job completed"/);

    expect(completedJobs(crawlOnly!.output())).toEqual([]);
    expect(await metricsOf(crawlOnly!)).not.toMatch(/jobs_processed_total\{[^}]*queue="(embed|backup|delete|ingest)"/);
    expect(
      completedJobs(rest!.output())
        .map((l) => l.job)
        .sort(),
    ).toEqual(['delete-library', 'index-ingestion', 'ingest-library', 'write-backup']);
  });

  it('a crawl fans its pages out to the crawl-only worker, which counts pages fetched and failed', async () => {
    const crawl = await postJson(
      `${api!.baseUrl}/api/crawl`,
      {
        libraryId: 'scale/crawl',
        name: 'Crawled',
        urls: [`${site.origin}/index.html`, `${site.origin}/missing.html`],
        renderer: 'http',
      },
      bearer,
    );
    expect(crawl.status).toBe(200);
    expect(crawl.body).toMatchObject({
      success: true,
      pagesCrawled: 1,
      errors: [expect.stringContaining('/missing.html')],
    });

    await rest!.waitForOutput(/"job":"crawl-site".*"msg":"job completed"/);
    const crawlJobs = completedJobs(crawlOnly!.output());
    expect(crawlJobs.length).toBeGreaterThan(0);
    expect(crawlJobs.every((l) => l.queue === 'crawl' && l.job === 'crawl-page')).toBe(true);
    expect(completedJobs(rest!.output()).some((l) => l.job === 'crawl-site')).toBe(true);
    expect(completedJobs(rest!.output()).some((l) => l.job === 'crawl-page')).toBe(false);

    const metrics = await metricsOf(crawlOnly!);
    expect(metrics).toMatch(/^crawl_pages_fetched_total\{service="worker"\} 1$/m);
    expect(metrics).toMatch(/^crawl_pages_failed_total\{service="worker"\} 1$/m);
    expect(metrics).toMatch(
      /jobs_processed_total\{queue="crawl",job="crawl-page",outcome="completed",service="worker"\} 1/,
    );
  });
});
