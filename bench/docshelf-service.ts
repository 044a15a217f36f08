/**
 * Docshelf as the crawl benchmarks run it: `npm start`'s real API and worker processes (scripts/start.mjs) on a data
 * dir and queue prefix of their own, an admin key to drive them, and the reads the benchmarks make of them (the
 * processes' pids, the worker's /metrics, a library's chunks).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ADMIN, deleteRedisKeys, REDIS_URL } from '@docshelf/testing/e2e/harness';
import { createKeyVia, loginCookie } from '@docshelf/testing/e2e/ops-processes';
import { freePort, startService, type ServiceProcess } from '@docshelf/testing/e2e/service-process';
import { processTable } from './process-tree';

/** Page jobs at once, in Docshelf and in every baseline. */
export const CONCURRENCY = 4;

export interface Docshelf {
  service: ServiceProcess;
  prefix: string;
  dataDir: string;
  healthPort: number;
  redisUrl: string;
  key: string;
}

/** `npm start` with the benchmarks' settings (`env` wins), once its API answers; an admin key made through the API. */
export async function startDocshelf(env: Record<string, string> = {}): Promise<Docshelf> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docshelf-bench-'));
  const prefix = `docshelf-bench-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const healthPort = await freePort();
  const redisUrl = env.REDIS_URL ?? REDIS_URL;
  const service = await startService(
    {
      REDIS_URL: redisUrl,
      DATA_DIR: dataDir,
      QUEUE_PREFIX: prefix,
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      PRIVATE_HOST_ALLOWLIST: '127.0.0.1',
      WORKER_HEALTH_PORT: String(healthPort),
      WORKER_CONCURRENCY_CRAWL: String(CONCURRENCY),
      LOG_LEVEL: 'warn',
      // The benchmarks read the worker's /metrics.
      METRICS_PUBLIC: 'true',
      CRAWL_WAIT_TIMEOUT_MS: '1800000',
      // Politeness is for other people's hosts; the baselines have none, and these sites are served locally.
      CRAWL_HOST_PAGES_PER_SECOND: '0',
      ...env,
    },
    dataDir,
  );
  const key = await createKeyVia(service.baseUrl, await loginCookie(service.baseUrl));
  return { service, prefix, dataDir, healthPort, redisUrl, key };
}

export async function stopDocshelf(d: Docshelf): Promise<void> {
  await d.service.stop();
  await deleteRedisKeys(d.prefix, d.redisUrl);
  fs.rmSync(d.dataDir, { recursive: true, force: true });
}

/** The child of `npm start`'s launcher that runs `apps/<app>`. */
export function appPid(d: Docshelf, app: 'api' | 'worker'): number | undefined {
  const children = processTable().get(d.service.child.pid!) ?? [];
  return children.find((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(`apps/${app}`);
    } catch {
      return false;
    }
  });
}

/** The worker process of `npm start`, once the launcher has started it. */
export async function waitForWorker(d: Docshelf): Promise<number> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const pid = appPid(d, 'worker');
    if (pid) return pid;
    if (Date.now() > deadline) throw new Error('the worker process of npm start did not appear');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** One counter or gauge of a worker's /metrics (its health server, e.g. `http://127.0.0.1:3001`); 0 when absent. */
export async function metric(healthUrl: string, name: string): Promise<number> {
  const text = await (await fetch(`${healthUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
  return line ? Number(line.split(' ').pop()) : 0;
}

export interface ListedChunk {
  id: string;
  content: string;
  url?: string;
}

/** Every chunk of a library through GET /api/chunks, in the library's order. */
export async function allChunks(baseUrl: string, key: string, libraryId: string): Promise<ListedChunk[]> {
  const chunks: ListedChunk[] = [];
  for (let offset: number | null = 0; offset !== null;) {
    const response = await fetch(
      `${baseUrl}/api/chunks?libraryId=${encodeURIComponent(libraryId)}&offset=${offset}&limit=500`,
      { headers: { authorization: `Bearer ${key}` } },
    );
    if (!response.ok) throw new Error(`GET /api/chunks answered ${response.status}: ${await response.text()}`);
    const body = (await response.json()) as { chunks: ListedChunk[]; nextOffset: number | null };
    chunks.push(...body.chunks.map(({ id, content, url }) => ({ id, content, ...(url ? { url } : {}) })));
    offset = body.nextOffset;
  }
  return chunks;
}
