import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort } from './service-process';

export interface TestRedis {
  port: number;
  url: string;
  /** Starts redis-server again on the same port. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** A throwaway redis-server on a free port (no persistence), for tests that stop and restart Redis. */
export async function startTestRedis(extraArgs: string[] = []): Promise<TestRedis> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...extraArgs],
      {
        stdio: 'ignore',
      },
    );
    const deadline = Date.now() + 10_000;
    for (;;) {
      const probe = new Redis(url, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
      probe.on('error', () => undefined);
      try {
        await probe.connect();
        await probe.ping();
        return;
      } catch {
        if (Date.now() > deadline) throw new Error(`redis-server did not start on port ${port}`);
        await new Promise((r) => setTimeout(r, 50));
      } finally {
        probe.disconnect();
      }
    }
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  };
  await start();
  return { port, url, start, stop };
}
