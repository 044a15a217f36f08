/**
 * Cold start of the API: from spawning `node` to the first answer of /healthz, and the process's resident memory
 * once /readyz says ready. Compiled output (`node apps/api/dist/main.js`, what `npm start` and the image run) against
 * the TypeScript sources through tsx (what `npm run dev` runs), alternated so machine noise hits both alike.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { freePort } from '@docshelf/testing/e2e/service-process';
import { deleteRedisKeys } from '@docshelf/testing/e2e/harness';

const REPO = path.join(__dirname, '..');
const RUNS = 5;

const variants = {
  compiled: [path.join(REPO, 'apps/api/dist/main.js')],
  tsx: ['--conditions=@docshelf/source', '--import', 'tsx', path.join(REPO, 'apps/api/src/main.ts')],
};

interface Boot {
  msToHealthz: number;
  rssMiB: number;
}

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(url)).ok;
  } catch {
    return false;
  }
}

async function bootOnce(args: string[]): Promise<Boot> {
  const port = await freePort();
  const prefix = `docshelf-bench-${randomBytes(4).toString('hex')}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docshelf-cold-'));
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, args, {
    cwd: REPO,
    stdio: 'ignore',
    env: {
      PATH: process.env.PATH ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      QUEUE_PREFIX: prefix,
      REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      ADMIN_EMAIL: 'admin@docshelf.test',
      ADMIN_PASSWORD: 'bench-password-1',
      LOG_LEVEL: 'warn',
    },
  });
  try {
    const base = `http://127.0.0.1:${port}`;
    while (!(await answers(`${base}/healthz`))) {
      if (child.exitCode !== null) throw new Error(`the API exited (${child.exitCode}) before answering`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const msToHealthz = Number(process.hrtime.bigint() - started) / 1e6;
    while (!(await answers(`${base}/readyz`))) await new Promise((resolve) => setTimeout(resolve, 10));
    const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
    const rssKiB = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? NaN);
    return { msToHealthz, rssMiB: rssKiB / 1024 };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once('exit', resolve)));
    fs.rmSync(dataDir, { recursive: true, force: true });
    await deleteRedisKeys(prefix);
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function benchColdStart(): Promise<void> {
  if (!fs.existsSync(variants.compiled[0]!)) throw new Error('apps/api/dist is missing: run `npm run build` first');
  const boots: Record<keyof typeof variants, Boot[]> = { compiled: [], tsx: [] };
  for (let run = 0; run < RUNS; run++) {
    for (const name of ['compiled', 'tsx'] as const) boots[name].push(await bootOnce(variants[name]));
  }
  const compiled = median(boots.compiled.map((b) => b.msToHealthz));
  const tsx = median(boots.tsx.map((b) => b.msToHealthz));
  console.log(`\nAPI cold start, spawn to first /healthz answer, median of ${RUNS} alternated boots each:`);
  console.log(
    `compiled (node apps/api/dist/main.js) ${compiled.toFixed(0).padStart(6)} ms | baseline tsx (apps/api/src/main.ts) ${tsx
      .toFixed(0)
      .padStart(6)} ms | ratio ${(compiled / tsx).toFixed(2)}x`,
  );
  console.log(
    `RSS once ready: compiled ${median(boots.compiled.map((b) => b.rssMiB)).toFixed(0)} MiB | tsx ${median(
      boots.tsx.map((b) => b.rssMiB),
    ).toFixed(0)} MiB`,
  );
}
