import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

const REPO = path.resolve(__dirname, '../../../..');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export interface ServiceProcess {
  child: ChildProcess;
  baseUrl: string;
  output(): string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Runs `npm start`'s launcher as a real process tree (API + worker) and waits until the API answers. */
export async function startService(env: Record<string, string>, cwd: string): Promise<ServiceProcess> {
  const port = env.PORT ?? String(await freePort());
  // Suites run side by side: each worker gets its own health port rather than the default 3001.
  const healthPort = env.WORKER_HEALTH_PORT ?? String(await freePort());
  const child = spawn(process.execPath, [path.join(REPO, 'scripts/start.mjs')], {
    cwd,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      HOST: '127.0.0.1',
      ...env,
      PORT: port,
      WORKER_HEALTH_PORT: healthPort,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited early:\n${log}`);
    try {
      if ((await fetch(`${baseUrl}/api/libraries`)).ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`service did not answer within 30s:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    child,
    baseUrl,
    output: () => log,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once('close', (code) => resolve(code));
        child.kill('SIGTERM');
      }),
  };
}
