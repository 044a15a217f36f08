import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DOCS_SITE, serveFixtures } from '@docshelf/testing/e2e/fixture-site';
import { deleteRedisKeys } from '@docshelf/testing/e2e/redis-keys';
import { startService } from '@docshelf/testing/e2e/service-process';
import { buildGitRepository, startGitHttpServer } from '@docshelf/testing/targets/git-http-server';
import type http from 'node:http';
import { ADMIN, E2E_ENV, HELD_PAGE } from './env';

/**
 * Holds every request for `held` until a test calls /__release (and again after /__hold), so a test sees a crawl
 * while it runs, with the other pages done and their errors shown, whatever the machine's speed.
 */
function holdPage(held: string) {
  let waiting: Array<() => void> = [];
  let holding = true;
  return (req: http.IncomingMessage, res: http.ServerResponse): boolean => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/__release' || url.pathname === '/__hold') {
      holding = url.pathname === '/__hold';
      if (!holding) waiting.forEach((release) => release());
      waiting = [];
      res.writeHead(204).end();
      return true;
    }
    if (url.pathname !== held || !holding) return false;
    waiting.push(() => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      fs.createReadStream(path.join(DOCS_SITE, held)).pipe(res);
    });
    return true;
  };
}

/**
 * The real thing for the browser: `npm start`'s API and worker processes on a free port, the shared Redis under a
 * fresh queue prefix, SQLite in a fresh data dir, and the fixture docs site and a git repository on 127.0.0.1 (allowed
 * by PRIVATE_HOST_ALLOWLIST). Tests read the addresses from the environment this sets.
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  if (!fs.existsSync(path.resolve(__dirname, '../../dist/index.html'))) {
    throw new Error('apps/web/dist is missing: run `npm run build:web` before the browser tests');
  }
  // `npm start` compiles what changed before it starts; done here first, so its start is quick.
  const build = spawnSync('npm', ['run', '--silent', 'build'], {
    cwd: path.resolve(__dirname, '../../../..'),
    stdio: 'inherit',
  });
  if (build.status !== 0) throw new Error('npm run build failed: the service cannot start');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docshelf-web-e2e-'));
  const prefix = `docshelf-web-e2e-${randomBytes(4).toString('hex')}`;
  const site = await serveFixtures({ root: DOCS_SITE, routes: holdPage(HELD_PAGE) });
  // A git repository of Markdown and reStructuredText docs, served by git's own http-backend.
  const gitRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'docshelf-web-e2e-git-'));
  buildGitRepository(gitRoot, 'widget', [
    {
      files: {
        'README.md': '# Widget\n\nA widget for dashboards.\n',
        'docs/install.rst': 'Installing\n==========\n\nRun the installer::\n\n    widget install\n',
      },
      tag: 'v1.0.0',
    },
  ]);
  const git = await startGitHttpServer({ root: gitRoot });
  const service = await startService(
    {
      DATA_DIR: dataDir,
      QUEUE_PREFIX: prefix,
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      PRIVATE_HOST_ALLOWLIST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      // A low login limit, so the test reaches it in a few attempts (per account: the admin is not locked out).
      LOGIN_MAX_ATTEMPTS_PER_ACCOUNT: '3',
      // The held page waits for the test's screenshots and scans before it is answered.
      PAGE_TIMEOUT_MS: '120000',
      WORKER_CONCURRENCY: '2',
      ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
      ...(process.env.CHROMIUM_PATH ? { CHROMIUM_PATH: process.env.CHROMIUM_PATH } : {}),
    },
    dataDir,
  );
  process.env[E2E_ENV.baseUrl] = service.baseUrl;
  process.env[E2E_ENV.siteOrigin] = site.origin;
  process.env[E2E_ENV.gitOrigin] = git.origin;
  return async () => {
    const code = await service.stop();
    if (code !== 0) console.error(`docshelf exited with ${code}:\n${service.output().slice(-4_000)}`);
    await site.close();
    await git.close();
    fs.rmSync(gitRoot, { recursive: true, force: true });
    await deleteRedisKeys(prefix);
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
}
