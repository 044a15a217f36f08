import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { buildAdapters, type Adapters } from '@docshelf/adapters';
import { loadConfig } from '@docshelf/config';
import { makeChunks } from '@docshelf/testing/e2e/harness';
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
import { startTestRedis, type TestRedis } from '@docshelf/testing/e2e/redis-server';
import { recordFigure } from '@docshelf/testing/reliability/figures';

async function waitUntil(condition: () => Promise<boolean>, timeoutMs: number, pollMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

const getJson = async (url: string, headers: Record<string, string>) => {
  const res = await fetch(url, { headers });
  return { status: res.status, body: (await res.json()) as any };
};

describe('Redis goes away and comes back (real API and worker processes, Redis with an append-only file)', () => {
  const redisDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docshelf-redis-'));
  let redis: TestRedis;
  let env: Record<string, string>;
  let api: ApiProcess | undefined;
  let worker: WorkerProcess | undefined;

  beforeAll(async () => {
    redis = await startTestRedis(['--appendonly', 'yes', '--appendfsync', 'always', '--dir', redisDir]);
    env = opsEnv({ REDIS_URL: redis.url, JOB_WAIT_TIMEOUT_MS: '60000' });
    [api, worker] = await Promise.all([spawnApi(env), spawnWorker(env)]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([stopQuietly(api), stopQuietly(worker)]);
    await redis.stop();
    await cleanUpOpsEnv(env);
    fs.rmSync(redisDir, { recursive: true, force: true });
  });

  it('answers 503 within a second while it is down, works again within 5 s of its return, and loses no accepted job', async () => {
    const bearer = { authorization: `Bearer ${await createKeyVia(api!.baseUrl, await loginCookie(api!.baseUrl))}` };
    // Jobs accepted before the outage: enough work that some are still queued or running when Redis stops.
    const accepted: string[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await postJson(
        `${api!.baseUrl}/api/ingest`,
        { libraryId: `outage/before-${i}`, name: 'Before', chunks: makeChunks(40, { words: 300 }) },
        { ...bearer, prefer: 'respond-async' },
      );
      expect(res.status).toBe(202);
      accepted.push(res.body.jobId);
    }

    await redis.stop();
    const stoppedAt = Date.now();
    const during: { status: number; ms: number }[] = [];
    while (Date.now() - stoppedAt < 3_000) {
      during.push(
        await postJson(
          `${api!.baseUrl}/api/ingest`,
          { libraryId: 'outage/during', name: 'During', chunks: makeChunks(1) },
          bearer,
        ),
      );
      during.push(
        await postJson(
          `${api!.baseUrl}/api/ingest`,
          { libraryId: 'outage/during', name: 'During', chunks: makeChunks(1) },
          { ...bearer, prefer: 'respond-async' },
        ),
      );
    }
    // What needs no queue keeps answering: the library list and job records live in the record store.
    const reads = await Promise.all([
      getJson(`${api!.baseUrl}/api/libraries`, {}),
      getJson(`${api!.baseUrl}/api/jobs/${accepted[0]}`, bearer),
    ]);

    await redis.start();
    const restartedAt = Date.now();
    let recoveredAt = 0;
    let afterCount = 0;
    await waitUntil(
      async () => {
        afterCount++;
        const res = await postJson(
          `${api!.baseUrl}/api/ingest`,
          { libraryId: 'outage/after', name: 'After', chunks: makeChunks(1) },
          bearer,
        );
        if (res.status === 200) recoveredAt = Date.now();
        return res.status === 200;
      },
      30_000,
      100,
    );
    const recoveryMs = recoveredAt - restartedAt;

    await waitUntil(
      async () => {
        const states = await Promise.all(
          accepted.map(async (id) => (await getJson(`${api!.baseUrl}/api/jobs/${id}`, bearer)).body.state),
        );
        return states.every((s) => s === 'completed' || s === 'failed');
      },
      90_000,
      250,
    );
    const ended = await Promise.all(
      accepted.map(async (id) => (await getJson(`${api!.baseUrl}/api/jobs/${id}`, bearer)).body),
    );
    const lost = ended.filter((job) => job.state !== 'completed').length;
    const slowest = Math.max(...during.map((d) => d.ms));

    recordFigure({
      scenario: 'Redis stopped for 3 s under load',
      requests: accepted.length + during.length + reads.length + afterCount,
      faults: 1,
      serverErrors: during.filter((d) => d.status >= 500).length,
      rowsLost: lost,
      duplicates: 0,
      recoveryMs,
      note: `during the outage: ${during.length} requests, all ${[...new Set(during.map((d) => d.status))].join('/')}, slowest ${slowest} ms; reads ${reads.map((r) => r.status).join('/')}`,
    });
    expect(during.length).toBeGreaterThan(4);
    expect(during.every((d) => d.status === 503)).toBe(true);
    expect(slowest).toBeLessThan(1_000);
    expect(reads.map((r) => r.status)).toEqual([200, 200]);
    expect(recoveryMs).toBeLessThan(5_000);
    expect(ended.map((job) => job.state)).toEqual(Array(accepted.length).fill('completed'));
  }, 180_000);
});

describe('a worker killed in the middle of a job (real API and two worker processes)', () => {
  // A short lock and stall check, so another worker takes the job over in seconds, not the production 30 s + 15 s.
  const env = opsEnv({
    JOB_WAIT_TIMEOUT_MS: '110000',
    WORKER_LOCK_DURATION_MS: '4000',
    WORKER_STALLED_INTERVAL_MS: '2000',
    WEBHOOK_SECRET: 'reliability-webhook-secret',
    PRIVATE_HOST_ALLOWLIST: '127.0.0.1',
  });
  let api: ApiProcess | undefined;
  let workers: WorkerProcess[] = [];
  let adapters: Adapters;
  let receiver: http.Server;
  const deliveries: string[] = [];

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        deliveries.push(body);
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    [api, ...workers] = await Promise.all([spawnApi(env), spawnWorker(env), spawnWorker(env)]);
    adapters = buildAdapters(loadConfig({ DATA_DIR: env.DATA_DIR }));
  }, 60_000);
  afterAll(async () => {
    await adapters?.close();
    await Promise.all([stopQuietly(api), ...workers.map(stopQuietly)]);
    await new Promise((resolve) => receiver.close(resolve));
    await cleanUpOpsEnv(env);
  });

  it('another worker finishes it: every vector once, one backup, one callback', async () => {
    const bearer = { authorization: `Bearer ${await createKeyVia(api!.baseUrl, await loginCookie(api!.baseUrl))}` };
    const chunks = 3_000;
    await postJson(
      `${api!.baseUrl}/api/ingest`,
      { libraryId: 'crash/lib', name: 'Crash', skipEmbeddings: true, chunks: makeChunks(chunks, { words: 200 }) },
      bearer,
    );
    const callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const started = await postJson(
      `${api!.baseUrl}/api/embed`,
      { libraryId: 'crash/lib', limit: chunks, callbackUrl },
      { ...bearer, prefer: 'respond-async' },
    );
    expect(started.status).toBe(202);

    const victim = await waitForActiveJob(workers);
    const killed = await signalAndWait(victim, 'SIGKILL');
    expect(killed.signal).toBe('SIGKILL');
    const killedAt = Date.now();
    let job: any;
    await waitUntil(
      async () => {
        job = (await getJson(`${api!.baseUrl}/api/jobs/${started.body.jobId}`, bearer)).body;
        return job.state === 'completed' || job.state === 'failed';
      },
      110_000,
      100,
    );
    const recoveryMs = Date.now() - killedAt;
    await waitUntil(async () => deliveries.length >= 1, 30_000);
    // A second delivery, if one were coming, would follow within the retry backoff.
    await new Promise((r) => setTimeout(r, 3_000));

    const vectors = await adapters.vectors.count('crash/lib');
    const backups = await adapters.backups.list('crash/lib');
    recordFigure({
      scenario: 'worker SIGKILL during a 3,000-chunk embed',
      requests: 3,
      faults: 1,
      serverErrors: 0,
      rowsLost: chunks - vectors,
      duplicates: Math.max(0, deliveries.length - 1) + Math.max(0, backups.length - 1),
      recoveryMs,
      note: `job ${job.state} ${recoveryMs} ms after the kill (lock 4 s, stall check 2 s); ${deliveries.length} callback(s), ${backups.length} backup(s)`,
    });
    expect(job).toMatchObject({ state: 'completed', result: { processed: chunks, done: true } });
    expect(vectors).toBe(chunks);
    expect(deliveries).toHaveLength(1);
    expect(JSON.parse(deliveries[0]!)).toMatchObject({ id: started.body.jobId, state: 'completed' });
    expect(backups).toHaveLength(1);
  }, 180_000);
});
