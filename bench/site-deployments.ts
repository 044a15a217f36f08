/**
 * The processes a whole-site crawl run measures: `npm start`'s pair (API + one worker), or the compiled API and
 * worker processes started one by one (apps/api/dist/main.js, apps/worker/dist/main.js), so that a worker can be
 * killed, replaced or doubled. Each deployment gets its own data dir and queue prefix; by default a redis-server of
 * its own too, so that Redis's memory and CPU are the run's alone on a machine other people share.
 */
import { startTestRedis } from '@docshelf/testing/e2e/redis-server';
import {
  cleanUpOpsEnv,
  createKeyVia,
  loginCookie,
  opsEnv,
  spawnApi,
  spawnWorker,
  stopQuietly,
  type NodeProcess,
  type WorkerProcess,
} from '@docshelf/testing/e2e/ops-processes';
import { appPid, CONCURRENCY, startDocshelf, stopDocshelf, waitForWorker } from './docshelf-service';
import { signalTree } from './process-tree';
import type { Deployment } from './site-crawl';

/** Settings for every Docshelf process of the benchmark; BENCH_SITE_ENV is laid over them. */
export const SITE_BENCH_ENV: Record<string, string> = {
  WORKER_CONCURRENCY_CRAWL: String(CONCURRENCY),
  // Politeness is for other people's hosts; these sites are served on 127.0.0.1.
  CRAWL_HOST_PAGES_PER_SECOND: '0',
  // Six hours: a slow whole-site crawl is measured, not cut short.
  CRAWL_MAX_DURATION_MS: String(6 * 3600_000),
  CRAWL_WAIT_TIMEOUT_MS: String(6 * 3600_000),
  // Reading a library of 100,000 chunks back is 200 pages of /api/chunks.
  RATE_LIMIT_PER_KEY: '0',
  PRIVATE_HOST_ALLOWLIST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  // The runs read each crawl worker's /metrics.
  METRICS_PUBLIC: 'true',
};

/** A redis-server for one run (or the one at `url`, shared, when given), and how to be done with it. */
export async function redisForRun(url?: string): Promise<{ url: string; stop(): Promise<void> }> {
  if (url) return { url, stop: () => Promise.resolve() };
  const redis = await startTestRedis();
  return { url: redis.url, stop: () => redis.stop() };
}

/** `npm start` (scripts/start.mjs): the API and one worker as an operator runs them. */
export async function startNpmStart(redisUrl: string, env: Record<string, string>): Promise<Deployment> {
  const d = await startDocshelf({ ...env, REDIS_URL: redisUrl });
  try {
    const worker = await waitForWorker(d);
    return {
      baseUrl: d.service.baseUrl,
      key: d.key,
      redisUrl,
      prefix: d.prefix,
      trees: [
        { label: 'API', pid: appPid(d, 'api')! },
        { label: 'worker', pid: worker },
      ],
      healthUrls: { worker: `http://127.0.0.1:${d.healthPort}` },
      stop: () => stopDocshelf(d),
    };
  } catch (error) {
    await stopDocshelf(d);
    throw error;
  }
}

export interface SeparateDeployment extends Deployment {
  workers: Map<string, WorkerProcess>;
  /** Starts one more worker process (env laid over the deployment's) and waits until it is ready. */
  addWorker(label: string, env?: Record<string, string>): Promise<WorkerProcess>;
}

/** SIGTERM, then SIGKILL to the whole tree (Chromium included) if the process has not exited within 30 s. */
async function stopProcess(proc: NodeProcess): Promise<void> {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  proc.child.kill('SIGTERM');
  const timeout = new Promise((resolve) => setTimeout(resolve, 30_000, 'timeout'));
  if ((await Promise.race([proc.exited, timeout])) !== 'timeout') return;
  signalTree(proc.child.pid!, 'SIGKILL');
  await stopQuietly(proc);
}

/** The compiled API and the given workers, each a process of its own on one queue prefix and data dir. */
export async function startSeparate(
  redisUrl: string,
  env: Record<string, string>,
  workers: Array<{ label: string; env?: Record<string, string> }>,
): Promise<SeparateDeployment> {
  const base = opsEnv({ ...env, REDIS_URL: redisUrl });
  const started: NodeProcess[] = [];
  const running = new Map<string, WorkerProcess>();
  const addWorker = async (label: string, extra: Record<string, string> = {}) => {
    const worker = await spawnWorker({ ...base, ...extra }, { compiled: true });
    started.push(worker);
    running.set(label, worker);
    return worker;
  };
  const stop = async () => {
    await Promise.all(started.map(stopProcess));
    await cleanUpOpsEnv(base);
  };
  try {
    const api = await spawnApi(base, { compiled: true });
    started.push(api);
    for (const worker of workers) await addWorker(worker.label, worker.env);
    return {
      baseUrl: api.baseUrl,
      key: await createKeyVia(api.baseUrl, await loginCookie(api.baseUrl)),
      redisUrl,
      prefix: base.QUEUE_PREFIX!,
      trees: [
        { label: 'API', pid: api.child.pid! },
        ...workers.map(({ label }) => ({ label, pid: running.get(label)!.child.pid! })),
      ],
      healthUrls: Object.fromEntries([...running].map(([label, w]) => [label, w.healthUrl])),
      workers: running,
      addWorker,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
