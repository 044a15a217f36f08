import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cookieHeaderOf } from './cookies';
import { ADMIN, deleteRedisKeys, REDIS_URL } from './harness';
import { freePort } from './service-process';

const REPO = path.resolve(__dirname, '../../../..');

export interface NodeProcess {
  child: ChildProcess;
  /** stdout and stderr so far. */
  output(): string;
  /** Resolves when the process exits, with its code and when it exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  /** Waits until the output matches. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<void>;
}

export interface ApiProcess extends NodeProcess {
  baseUrl: string;
}

export interface WorkerProcess extends NodeProcess {
  healthUrl: string;
}

/** Env for one test's processes: its own queue prefix and data dir, the test admin, JSON logs at info. */
export function opsEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    REDIS_URL,
    QUEUE_PREFIX: `docshelf-ops-${randomBytes(4).toString('hex')}`,
    DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'docshelf-ops-')),
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    // Tests scrape /metrics freely unless they test its guard.
    METRICS_PUBLIC: 'true',
    ...extra,
  };
}

export async function cleanUpOpsEnv(env: Record<string, string>): Promise<void> {
  await deleteRedisKeys(env.QUEUE_PREFIX!).catch(() => undefined);
  fs.rmSync(env.DATA_DIR!, { recursive: true, force: true });
}

/**
 * `node --import tsx apps/<app>/src/main.ts`: the sources as `npm run dev` runs them (workspaces resolved to src/);
 * with `compiled`, `node apps/<app>/dist/main.js` as `npm start` runs them (after `npm run build`).
 */
function spawnApp(app: 'api' | 'worker', env: Record<string, string>, compiled = false): NodeProcess {
  const args = compiled
    ? [path.join(REPO, `apps/${app}/dist/main.js`)]
    : ['--conditions=@docshelf/source', '--import', 'tsx', path.join(REPO, `apps/${app}/src/main.ts`)];
  return watchProcess(
    spawn(process.execPath, args, {
      cwd: REPO,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
}

/**
 * `npm run <script>` exactly as an operator types it, in a process group of its own: stop it with stopGroup, which
 * also ends the processes npm started.
 */
export function spawnNpmScript(script: string, env: Record<string, string>): NodeProcess {
  return watchProcess(
    spawn('npm', ['run', '--silent', script], {
      cwd: REPO,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    }),
  );
}

export async function stopGroup(proc: NodeProcess | undefined, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (!proc?.child.pid || proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  try {
    process.kill(-proc.child.pid, signal);
  } catch {
    return;
  }
  await proc.exited;
}

function watchProcess(child: ChildProcess): NodeProcess {
  let log = '';
  const listeners = new Set<() => void>();
  const append = (chunk: Buffer) => {
    log += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout!.on('data', append);
  child.stderr!.on('data', append);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) => {
    const exitedAt = { at: 0 };
    child.once('exit', () => (exitedAt.at = Date.now()));
    // 'close' comes after the output pipes have drained, so output() is complete once this resolves.
    child.once('close', (code, signal) => resolve({ code, signal, at: exitedAt.at || Date.now() }));
  });
  return {
    child,
    output: () => log,
    exited,
    waitForOutput: (pattern, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (!pattern.test(log)) return;
          cleanup();
          resolve();
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no output matching ${pattern} within ${timeoutMs} ms:\n${log.slice(-3000)}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      }),
  };
}

async function waitForUrl(proc: NodeProcess, url: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc.child.exitCode !== null) throw new Error(`process exited early:\n${proc.output()}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      proc.child.kill('SIGKILL');
      throw new Error(`${url} did not answer within ${timeoutMs} ms:\n${proc.output()}`);
    }
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** Starts the API process and waits until it is ready (or only alive, when Redis is meant to be down); `compiled` runs dist/. */
export async function spawnApi(
  env: Record<string, string>,
  { waitFor = '/readyz', compiled = false }: { waitFor?: string; compiled?: boolean } = {},
): Promise<ApiProcess> {
  const port = env.PORT ?? String(await freePort());
  const proc = spawnApp('api', { ...env, PORT: port }, compiled);
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitForUrl(proc, baseUrl + waitFor);
  return { ...proc, baseUrl };
}

/** Starts a worker process with its health port and waits until /readyz says its workers run; `compiled` runs dist/. */
export async function spawnWorker(
  env: Record<string, string>,
  { waitFor = '/readyz', compiled = false }: { waitFor?: string; compiled?: boolean } = {},
): Promise<WorkerProcess> {
  const port = env.WORKER_HEALTH_PORT ?? String(await freePort());
  const proc = spawnApp('worker', { ...env, WORKER_HEALTH_PORT: port }, compiled);
  const healthUrl = `http://127.0.0.1:${port}`;
  await waitForUrl(proc, healthUrl + waitFor);
  return { ...proc, healthUrl };
}

/** Sends a signal and resolves with the exit code and how long the exit took. */
export async function signalAndWait(
  proc: NodeProcess,
  signal: NodeJS.Signals,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }> {
  const sent = Date.now();
  proc.child.kill(signal);
  const exit = await proc.exited;
  return { code: exit.code, signal: exit.signal, ms: exit.at - sent };
}

export async function stopQuietly(proc: NodeProcess | undefined): Promise<void> {
  if (!proc || proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  proc.child.kill('SIGKILL');
  await proc.exited;
}

/** Logs in through the API and returns the Cookie header value. */
export async function loginCookie(baseUrl: string): Promise<string> {
  const res = await fetch(`${baseUrl}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(ADMIN),
  });
  if (!res.ok) throw new Error(`login failed: ${res.status} ${await res.text()}`);
  return cookieHeaderOf(res.headers.get('set-cookie'));
}

export async function createKeyVia(
  baseUrl: string,
  cookie: string,
  permissions: 'admin' | 'read' = 'admin',
): Promise<string> {
  const res = await fetch(`${baseUrl}/api/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie },
    body: JSON.stringify({ name: `${permissions} key`, permissions }),
  });
  return ((await res.json()) as { key: string }).key;
}

export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any; ms: number }> {
  const started = Date.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed, ms: Date.now() - started };
}

/** The worker's /readyz body (200 or 503). */
export async function workerReadiness(worker: WorkerProcess): Promise<{ status: number; body: any }> {
  const res = await fetch(`${worker.healthUrl}/readyz`);
  return { status: res.status, body: await res.json() };
}

/** Resolves with the first of the workers that reports an active job. */
export async function waitForActiveJob<W extends WorkerProcess>(workers: W[], timeoutMs = 20_000): Promise<W> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const worker of workers) {
      if ((await workerReadiness(worker)).body.activeJobs > 0) return worker;
    }
    if (Date.now() > deadline) throw new Error(`no worker took a job within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
