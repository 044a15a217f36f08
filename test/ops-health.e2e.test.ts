import { makeChunks } from '@docshelf/testing/e2e/harness';
import {
  cleanUpOpsEnv,
  createKeyVia,
  loginCookie,
  opsEnv,
  postJson,
  spawnApi,
  spawnWorker,
  stopQuietly,
  type ApiProcess,
  type WorkerProcess,
} from '@docshelf/testing/e2e/ops-processes';
import { startTestRedis, type TestRedis } from '@docshelf/testing/e2e/redis-server';
import { freePort } from '@docshelf/testing/e2e/service-process';

const getJson = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as any };
};

async function pollUntil<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs: number,
): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  for (;;) {
    const value = await read();
    if (done(value)) return { value, ms: Date.now() - started };
    if (Date.now() - started > timeoutMs)
      throw new Error(`condition not met within ${timeoutMs} ms; last: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('health and readiness of the API and worker processes, with a Redis the test stops and restarts', () => {
  let redis: TestRedis;
  let env: Record<string, string>;
  let api: ApiProcess | undefined;
  let worker: WorkerProcess | undefined;

  beforeAll(async () => {
    // allkeys-lru also shows the boot warning about the eviction policy.
    redis = await startTestRedis(['--maxmemory-policy', 'allkeys-lru']);
    env = opsEnv({ REDIS_URL: redis.url, JOB_WAIT_TIMEOUT_MS: '20000' });
    [api, worker] = await Promise.all([spawnApi(env), spawnWorker(env)]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([stopQuietly(api), stopQuietly(worker)]);
    await redis.stop();
    await cleanUpOpsEnv(env);
  });

  it('answers /healthz and /readyz on both processes when everything is up', async () => {
    expect(await getJson(`${api!.baseUrl}/healthz`)).toEqual({ status: 200, body: { status: 'ok' } });
    expect(await getJson(`${api!.baseUrl}/readyz`)).toEqual({
      status: 200,
      body: { status: 'ready', checks: { redis: 'ok', records: 'ok' } },
    });
    expect(await getJson(`${worker!.healthUrl}/healthz`)).toEqual({ status: 200, body: { status: 'ok' } });
    const ready = await getJson(`${worker!.healthUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({
      status: 'ready',
      checks: { redis: 'ok', records: 'ok', workers: 'ok' },
      activeJobs: 0,
    });
    expect(ready.body.queues.map((q: { queue: string }) => q.queue).sort()).toEqual([
      'backup',
      'callbacks',
      'crawl',
      'delete',
      'embed',
      'ingest',
    ]);
    expect(ready.body.queues.every((q: { running: boolean }) => q.running)).toBe(true);
  });

  it('warns at boot when Redis may evict keys (maxmemory-policy is not noeviction)', async () => {
    await api!.waitForOutput(/maxmemory-policy is 'allkeys-lru', not 'noeviction'/);
    await worker!.waitForOutput(/maxmemory-policy is 'allkeys-lru', not 'noeviction'/);
  });

  it('Redis stopped: readyz 503 naming redis, producers fail fast with 503; Redis back: 200 again without a restart', async () => {
    const cookie = await loginCookie(api!.baseUrl);
    const key = await createKeyVia(api!.baseUrl, cookie);
    const bearer = { authorization: `Bearer ${key}` };

    await redis.stop();
    const down = await pollUntil(
      () => getJson(`${api!.baseUrl}/readyz`),
      (r) => r.status === 503,
      5_000,
    );
    expect(down.value.body).toMatchObject({
      status: 'not_ready',
      code: 'NOT_READY',
      checks: { redis: 'failed', records: 'ok' },
      details: [{ check: 'redis', message: expect.stringMatching(/Redis|ECONNREFUSED|closed/i) }],
    });
    expect(down.value.body.error).toMatch(/^Not ready: redis: /);
    expect((await getJson(`${api!.baseUrl}/healthz`)).status).toBe(200);

    const workerDown = await pollUntil(
      () => getJson(`${worker!.healthUrl}/readyz`),
      (r) => r.status === 503,
      5_000,
    );
    expect(workerDown.value.body.checks).toMatchObject({ redis: 'failed', records: 'ok' });
    expect(workerDown.value.body.details.map((d: { check: string }) => d.check)).toContain('redis');

    const refused = await postJson(
      `${api!.baseUrl}/api/ingest`,
      { libraryId: 'outage/one', name: 'Outage', chunks: makeChunks(2) },
      bearer,
    );
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({
      code: 'QUEUE_UNAVAILABLE',
      error: expect.stringMatching(/queue is unavailable/),
    });
    expect(refused.ms).toBeLessThan(1_000);
    console.log(`ops figures: ingest with Redis down answered 503 in ${refused.ms} ms`);

    const restarted = Date.now();
    await redis.start();
    const back = await pollUntil(
      () => getJson(`${api!.baseUrl}/readyz`),
      (r) => r.status === 200,
      15_000,
    );
    const apiBackMs = Date.now() - restarted;
    expect(back.value.body).toEqual({ status: 'ready', checks: { redis: 'ok', records: 'ok' } });
    await pollUntil(
      () => getJson(`${worker!.healthUrl}/readyz`),
      (r) => r.status === 200,
      15_000,
    );
    console.log(
      `ops figures: readyz 200 again ${apiBackMs} ms (api) / ${Date.now() - restarted} ms (worker) after redis-server answered again`,
    );

    // The same processes take work again: the worker reconnected its blocking connection and the API its event stream.
    const ingest = await postJson(
      `${api!.baseUrl}/api/ingest`,
      { libraryId: 'outage/two', name: 'After', chunks: makeChunks(3) },
      bearer,
    );
    expect(ingest.status).toBe(200);
    expect(ingest.body).toEqual({ success: true, libraryId: 'outage/two', chunksIngested: 3, vectorized: true });
  }, 60_000);

  it('an API booted while Redis is unreachable is alive, not ready, and refuses jobs within a second', async () => {
    const deadRedis = `redis://127.0.0.1:${await freePort()}`;
    const coldEnv = { ...env, REDIS_URL: deadRedis };
    const cold = await spawnApi(coldEnv, { waitFor: '/healthz' });
    try {
      const ready = await getJson(`${cold.baseUrl}/readyz`);
      expect(ready.status).toBe(503);
      expect(ready.body.details).toEqual([
        { check: 'redis', message: expect.stringMatching(/ECONNREFUSED|not connected/) },
      ]);
      const key = await createKeyVia(cold.baseUrl, await loginCookie(cold.baseUrl));
      const refused = await postJson(
        `${cold.baseUrl}/api/ingest`,
        { libraryId: 'cold/boot', name: 'Cold', chunks: makeChunks(1) },
        { authorization: `Bearer ${key}` },
      );
      expect(refused.status).toBe(503);
      expect(refused.body.code).toBe('QUEUE_UNAVAILABLE');
      expect(refused.ms).toBeLessThan(1_000);
      await cold.waitForOutput(/could not check redis maxmemory-policy/);
    } finally {
      await stopQuietly(cold);
    }
  }, 60_000);
});
