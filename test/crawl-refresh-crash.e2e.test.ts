import type http from 'node:http';
import { generateDocsSite } from './fixtures/generated-docs-site';
import { serveFixtures, type FixtureServer } from '@docshelf/testing/e2e/fixture-site';
import {
  cleanUpOpsEnv,
  createKeyVia,
  loginCookie,
  opsEnv,
  postJson,
  signalAndWait,
  spawnApi,
  spawnWorker,
  stopQuietly,
  waitForActiveJob,
  type ApiProcess,
  type WorkerProcess,
} from '@docshelf/testing/e2e/ops-processes';

const PAGES = 40;
/** How long the site takes to answer a conditional request in the re-crawl: its checks last a few seconds. */
const SLOW_304_MS = 400;

/**
 * A re-crawl's page job checks the known pages it hands out itself; a worker killed without warning in the middle of
 * those checks loses nothing: after the stall interval another worker runs the job again, which checks them again.
 */
describe('SIGKILL of a worker while a re-crawl checks known pages (real processes)', () => {
  const env = opsEnv({
    PRIVATE_HOST_ALLOWLIST: '127.0.0.1',
    CRAWL_HOST_PAGES_PER_SECOND: '0',
    JOB_WAIT_TIMEOUT_MS: '110000',
    CRAWL_WAIT_TIMEOUT_MS: '110000',
    WORKER_LOCK_DURATION_MS: '4000',
    WORKER_STALLED_INTERVAL_MS: '2000',
  });
  const docs = generateDocsSite({ pages: PAGES });
  let slow = false;
  let answered304 = 0;
  const route = (req: http.IncomingMessage, res: http.ServerResponse): boolean => {
    const conditional = Boolean(req.headers['if-none-match']);
    if (!slow || !conditional || !docs.page(new URL(req.url ?? '/', 'http://site').pathname))
      return docs.route(req, res);
    setTimeout(() => {
      answered304 += 1;
      docs.route(req, res);
    }, SLOW_304_MS);
    return true;
  };
  let site: FixtureServer;
  let api: ApiProcess | undefined;
  let workers: WorkerProcess[] = [];

  beforeAll(async () => {
    site = await serveFixtures({ routes: route });
    [api, ...workers] = await Promise.all([spawnApi(env), spawnWorker(env), spawnWorker(env)]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([stopQuietly(api), ...workers.map(stopQuietly)]);
    await site?.close();
    await cleanUpOpsEnv(env);
  });

  it('another worker completes the crawl: every page counted once and unchanged, the library as it was', async () => {
    const bearer = { authorization: `Bearer ${await createKeyVia(api!.baseUrl, await loginCookie(api!.baseUrl))}` };
    const body = {
      libraryId: 'crash/refresh',
      name: 'Refresh',
      urls: [`${site.origin}${docs.indexPath}`],
      replace: true,
    };
    const first = await postJson(`${api!.baseUrl}/api/crawl`, body, bearer);
    expect(first.body).toMatchObject({ success: true, pagesCrawled: PAGES, pagesUnchanged: 0, errors: [] });

    slow = true;
    const again = postJson(`${api!.baseUrl}/api/crawl`, body, bearer);
    // The seed's page job is the only job running once its own page is done: it is checking the others.
    while (answered304 < 2) await new Promise((r) => setTimeout(r, 20));
    const victim = await waitForActiveJob(workers);
    expect((await signalAndWait(victim, 'SIGKILL')).signal).toBe('SIGKILL');
    const checkedBeforeKill = answered304;

    const answer = await again;
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ ...first.body, pagesUnchanged: PAGES });
    // The retried job asked again for what the killed one had checked.
    expect(answered304).toBeGreaterThan(checkedBeforeKill);
    const library = (await (await fetch(`${api!.baseUrl}/api/libraries/crash/refresh`)).json()) as {
      library: { chunkCount: number };
    };
    expect(library.library.chunkCount).toBe(first.body.chunksIngested);
  }, 120_000);
});
