import { generateDocsSite, topicSlug } from './fixtures/generated-docs-site';
import { serveFixtures, type FixtureServer } from '@docshelf/testing/e2e/fixture-site';
import { freePort } from '@docshelf/testing/e2e/service-process';
import {
  cleanUpOpsEnv,
  createKeyVia,
  loginCookie,
  opsEnv,
  postJson,
  spawnApi,
  spawnNpmScript,
  spawnWorker,
  stopGroup,
  stopQuietly,
  type ApiProcess,
  type NodeProcess,
  type WorkerProcess,
} from '@docshelf/testing/e2e/ops-processes';

const SITE = generateDocsSite({ pages: 3 });

/** The scaling commands of docs/operations.md on one machine: the second worker finds the health port taken and takes another. */
describe('two `npm run start:worker` on one host', () => {
  let env: Record<string, string>;
  let api: ApiProcess | undefined;
  let rest: WorkerProcess | undefined;
  const npmWorkers: NodeProcess[] = [];
  let site: FixtureServer;
  let pending = 0;
  let bothBusy: () => void;
  const busy = new Promise<void>((resolve) => (bothBusy = resolve));

  beforeAll(async () => {
    // One page request is answered only once another is waiting beside it: both workers must hold a page at once.
    site = await serveFixtures({
      routes: (req, res) => {
        if (!req.url?.startsWith('/docs/topic-')) return SITE.route(req, res);
        if (++pending >= 2) bothBusy();
        void busy.then(() => SITE.route(req, res));
        return true;
      },
    });
    // Both npm workers get the same health port, as two workers started with the defaults would.
    env = opsEnv({ PRIVATE_HOST_ALLOWLIST: '127.0.0.1', WORKER_HEALTH_PORT: String(await freePort()) });
    [api, rest] = await Promise.all([
      spawnApi(env),
      spawnWorker({
        ...env,
        WORKER_QUEUES: 'embed,backup,delete,ingest',
        WORKER_HEALTH_PORT: String(await freePort()),
      }),
    ]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([...npmWorkers.map((w) => stopGroup(w)), stopQuietly(api), stopQuietly(rest)]);
    await site.close();
    await cleanUpOpsEnv(env);
  });

  it('both start, the second on a port it names, and both serve jobs', async () => {
    const crawlOnly = { ...env, WORKER_QUEUES: 'crawl', WORKER_CONCURRENCY_CRAWL: '1' };
    npmWorkers.push(spawnNpmScript('start:worker', crawlOnly));
    await npmWorkers[0]!.waitForOutput(/worker health endpoints listening/);
    npmWorkers.push(spawnNpmScript('start:worker', crawlOnly));
    await npmWorkers[1]!.waitForOutput(
      /is in use \(another worker on this host\?\); worker health endpoints listening on port \d+ instead/,
    );

    const fallback = npmWorkers[1]!
      .output()
      .split('\n')
      .filter((line) => line.includes('is in use'))
      .map((line) => JSON.parse(line) as { port: number; requestedPort: number })[0]!;
    expect(fallback.requestedPort).toBe(Number(env.WORKER_HEALTH_PORT));
    expect(fallback.port).not.toBe(fallback.requestedPort);
    for (const port of [fallback.requestedPort, fallback.port]) {
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect(ready.status).toBe(200);
      expect(((await ready.json()) as { queues: unknown }).queues).toEqual([{ queue: 'crawl', running: true }]);
    }

    const bearer = { authorization: `Bearer ${await createKeyVia(api!.baseUrl, await loginCookie(api!.baseUrl))}` };
    const urls = [1, 2].map((n) => `${site.origin}/docs/${topicSlug(n)}.html`);
    const crawl = await postJson(
      `${api!.baseUrl}/api/crawl`,
      { libraryId: 'two/workers', name: 'Two', urls, renderer: 'http' },
      bearer,
    );
    expect(crawl.body).toMatchObject({ success: true, pagesCrawled: 2, errors: [] });
    for (const worker of npmWorkers) {
      await worker.waitForOutput(/"job":"crawl-page".*"outcome":"completed"/, 10_000);
    }
  }, 90_000);
});
