import fs from 'node:fs';
import path from 'node:path';
import { freePort } from '@docshelf/testing/e2e/service-process';
import {
  cleanUpOpsEnv,
  opsEnv,
  spawnNpmScript,
  stopGroup,
  type NodeProcess,
} from '@docshelf/testing/e2e/ops-processes';

/** Every process below `pid`, with its command line, read from /proc. */
function descendants(pid: number): { pid: number; command: string }[] {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      /* the process ended while we looked */
    }
  }
  const found: { pid: number; command: string }[] = [];
  const visit = (parent: number) => {
    for (const child of children.get(parent) ?? []) {
      try {
        found.push({
          pid: child,
          command: fs.readFileSync(`/proc/${child}/cmdline`, 'utf8').split('\0').join(' ').trim(),
        });
      } catch {
        /* ended */
      }
      visit(child);
    }
  };
  visit(pid);
  return found;
}

describe('the compiled build', () => {
  it('jest itself resolves the workspaces to their TypeScript sources, as `npm run dev` does', () => {
    expect(require.resolve('@docshelf/core')).toBe(path.join(__dirname, '../packages/core/src/index.ts'));
  });

  describe('`npm start`', () => {
    let env: Record<string, string>;
    let start: NodeProcess | undefined;

    beforeAll(async () => {
      env = opsEnv({ PORT: String(await freePort()), WORKER_HEALTH_PORT: String(await freePort()) });
    });

    afterAll(async () => {
      await stopGroup(start, 'SIGTERM');
      await cleanUpOpsEnv(env);
    });

    it('serves the API and runs the worker from dist/, with no TypeScript runtime in the process tree', async () => {
      start = spawnNpmScript('start', env);
      await start.waitForOutput(/"msg":"api listening"/, 90_000);
      await start.waitForOutput(/"msg":"worker health endpoints listening/, 90_000);

      const health = await fetch(`http://127.0.0.1:${env.PORT}/healthz`);
      expect(health.status).toBe(200);

      const commands = descendants(start.child.pid!).map((p) => p.command);
      const repo = path.join(__dirname, '..');
      expect(commands).toEqual(
        expect.arrayContaining([
          expect.stringMatching(new RegExp(`node ${repo}/apps/api/dist/main\\.js$`)),
          expect.stringMatching(new RegExp(`node ${repo}/apps/worker/dist/main\\.js$`)),
        ]),
      );
      expect(commands.filter((command) => /tsx|\.ts\b/.test(command))).toEqual([]);
    }, 120_000);
  });
});
