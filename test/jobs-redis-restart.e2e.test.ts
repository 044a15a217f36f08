import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { generateDocsSite } from './fixtures/generated-docs-site';
import { serveFixtures, type FixtureServer } from '@docshelf/testing/e2e/fixture-site';
import { startHarness, type Harness } from '@docshelf/testing/e2e/harness';
import { startTestRedis, type TestRedis } from '@docshelf/testing/e2e/redis-server';

const SITE = generateDocsSite();

/** Redis restarts as production runs it (append-only file, as in docker-compose): a crawl loses no page to the blip. */
describe('a Redis restart in the middle of a crawl', () => {
  let redis: TestRedis;
  let h: Harness;
  let site: FixtureServer;
  const redisDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docshelf-redis-'));

  beforeAll(async () => {
    redis = await startTestRedis(['--appendonly', 'yes', '--appendfsync', 'always', '--dir', redisDir]);
    h = await startHarness({ PRIVATE_HOST_ALLOWLIST: '127.0.0.1' }, { redisUrl: redis.url });
    site = await serveFixtures({ routes: SITE.route, delayMs: 30 });
  });
  afterAll(async () => {
    await site.close();
    await h.close();
    await redis.stop();
    fs.rmSync(redisDir, { recursive: true, force: true });
  });

  it('the crawl completes with every page', async () => {
    const auth = { Authorization: `Bearer ${await h.createKey('admin')}` };
    const body = { libraryId: 'blip/site', name: 'Blip', urls: [`${site.origin}${SITE.indexPath}`], renderer: 'http' };
    const { jobId } = (
      await request(h.app).post('/api/crawl').set(auth).set('Prefer', 'respond-async').send(body).expect(202)
    ).body;
    // Job records live in SQLite, so they can be read while Redis is away.
    const job = async () => (await request(h.app).get(`/api/jobs/${jobId}`).set(auth).expect(200)).body;

    await waitFor(async () => ((await job()).progress.pagesCrawled ?? 0) >= 20);
    await redis.stop();
    const crawledAtStop = (await job()).progress.pagesCrawled;
    await redis.start();

    await waitFor(async () => (await job()).state !== 'running', 90_000);
    const ended = await job();
    expect(crawledAtStop).toBeLessThan(150);
    expect(ended).toMatchObject({
      state: 'completed',
      result: {
        success: true,
        pagesDiscovered: 150,
        pagesCrawled: 150,
        chunksIngested: 150,
        vectorized: true,
        errors: [],
      },
    });
    expect(await h.adapters.libraries.countChunks('blip/site')).toBe(150);
    expect(await h.adapters.vectors.count('blip/site')).toBe(150);
  }, 120_000);
});

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
