/**
 * Where the worker's time goes in a whole crawl: the API and the worker in this process (the test harness: real
 * Redis, SQLite and Chromium), one crawl of a site at concurrency 4 (`maxDepth` 2, as the benchmark crawls; renderer
 * browser unless the second argument says auto or http), its crawling phase timed, with the process's CPU time per
 * page (Chromium's not included). A one-page crawl first starts the extraction threads and Chromium, untimed
 * (PROFILE_WARM_UP=0: not); PROFILE_RUNS=n crawls the site n times, into a new library each. Run it under
 * `--cpu-prof` for a profile of the Node side:
 * `npx tsx --cpu-prof --cpu-prof-dir=/tmp/prof bench/crawl-profile-worker.ts [generated|nodejs-doc|git-doc|sphinx-doc] [browser|auto|http]`.
 */
import path from 'node:path';
import { Queue } from 'bullmq';
import request from 'supertest';
import { generateDocsSite } from '../test/fixtures/generated-docs-site';
import { serveFixtures } from '@docshelf/testing/e2e/fixture-site';
import { REDIS_URL, startHarness } from '@docshelf/testing/e2e/harness';

const DOCS = path.resolve(__dirname, '../.cache/debian-docs/usr/share/doc');

async function main() {
  const which = process.argv[2] ?? 'nodejs-doc';
  const renderer = process.argv[3] ?? 'browser';
  const generated = generateDocsSite();
  const roots: Record<string, { root: string; seedPath: string }> = {
    'git-doc': { root: path.join(DOCS, 'git-doc'), seedPath: '/git.html' },
    'sphinx-doc': { root: path.join(DOCS, 'sphinx-doc/html'), seedPath: '/index.html' },
    'nodejs-doc': { root: path.join(DOCS, 'nodejs/api'), seedPath: '/index.html' },
  };
  const site = roots[which] ?? roots['nodejs-doc']!;
  const server =
    which === 'generated' ? await serveFixtures({ routes: generated.route }) : await serveFixtures({ root: site.root });
  const seed = `${server.origin}${which === 'generated' ? generated.indexPath : site.seedPath}`;
  const h = await startHarness({
    PRIVATE_HOST_ALLOWLIST: '127.0.0.1',
    WORKER_CONCURRENCY_CRAWL: '4',
    CRAWL_HOST_PAGES_PER_SECOND: '0',
    JOB_WAIT_TIMEOUT_MS: '600000',
    CRAWL_WAIT_TIMEOUT_MS: '600000',
  });
  try {
    const auth = { Authorization: `Bearer ${await h.createKey('admin')}` };
    // Not timed: starts what a running worker already has (the extraction threads, Chromium when it renders).
    const warmUp = { libraryId: 'profile/warm-up', name: 'warm-up', urls: [seed], maxDepth: 0, renderer };
    if (process.env.PROFILE_WARM_UP !== '0') await request(h.app).post('/api/crawl').set(auth).send(warmUp);
    const runs = Number(process.env.PROFILE_RUNS ?? 1);
    for (let run = 1; run <= runs; run++) await profileCrawl(h.app, auth, h.prefix, { which, seed, renderer, run });
  } finally {
    await h.close();
    await server.close();
  }
}

async function profileCrawl(
  app: Parameters<typeof request>[0],
  auth: Record<string, string>,
  prefix: string,
  crawl: { which: string; seed: string; renderer: string; run: number },
): Promise<void> {
  const { which, seed, renderer, run } = crawl;
  const cpu = process.cpuUsage();
  const started = performance.now();
  const startedAt = Date.now();
  const accepted = await request(app)
    .post('/api/crawl')
    .set(auth)
    .set('Prefer', 'respond-async')
    .send({
      libraryId: `profile/${which}-${run}`,
      name: which,
      urls: [seed],
      maxDepth: 2,
      renderer,
      excludePaths: ['/all.html'],
    });
  let crawledMs = 0;
  let crawlCpu = 0;
  for (;;) {
    const job = (await request(app).get(`/api/jobs/${accepted.body.jobId}`).set(auth)).body;
    if (!crawledMs && job.progress.phase !== 'crawling' && job.progress.phase !== 'queued') {
      crawledMs = performance.now() - started;
      const used = process.cpuUsage(cpu);
      crawlCpu = (used.user + used.system) / 1000;
    }
    if (job.state === 'completed' || job.state === 'failed') {
      const pages = job.result?.pagesCrawled as number;
      console.log(
        `${which} (${renderer}): ${pages} pages crawled in ${(crawledMs / 1000).toFixed(1)} s = ${(pages / (crawledMs / 1000)).toFixed(2)} pages/s; Node (API + worker) CPU while crawling ${(crawlCpu / pages).toFixed(1)} ms/page; errors: ${JSON.stringify(job.result?.errors ?? job.error)}`,
      );
      await printSlotUse(prefix, crawledMs, startedAt);
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** How busy the crawl's 4 worker slots were: time inside page jobs against the time between them. */
async function printSlotUse(prefix: string, crawledMs: number, since: number): Promise<void> {
  const queue = new Queue('crawl', { connection: { url: REDIS_URL }, prefix });
  try {
    const jobs = await queue.getJobs(['completed', 'failed'], 0, 1000);
    const spans = jobs
      .filter((j) => j.timestamp >= since)
      .map((j) => ({ start: j.processedOn!, end: j.finishedOn!, added: j.timestamp }))
      .sort((a, b) => a.start - b.start);
    const inside = spans.reduce((sum, s) => sum + (s.end - s.start), 0);
    const waited = spans.reduce((sum, s) => sum + (s.start - s.added), 0);
    const first = spans[0]!.start;
    const last = Math.max(...spans.map((s) => s.end));
    console.log(
      `  ${spans.length} page jobs over ${((last - first) / 1000).toFixed(1)} s (crawl phase ${(crawledMs / 1000).toFixed(1)} s): inside jobs ${(inside / spans.length).toFixed(0)} ms/page, ` +
        `slots busy ${((100 * inside) / (4 * (last - first))).toFixed(0)}%, queued before a worker took them ${(waited / spans.length).toFixed(0)} ms/page`,
    );
    // The crawl's edges: the seed's job alone at the start, fewer than 4 jobs at the end.
    const inFlightAt = (t: number) => spans.filter((s) => s.start <= t && s.end > t).length;
    const allBusy = spans.find((s) => inFlightAt(s.start) >= 4)?.start ?? last;
    const lastFull =
      spans
        .map((s) => s.end)
        .sort((a, b) => a - b)
        .find((t) => t >= allBusy && inFlightAt(t) < 4 && spans.every((s) => s.start <= t)) ?? last;
    console.log(
      `  first page job started ${first - since} ms after the request, 4 at once from ${allBusy - since} ms; fewer than 4 from ${lastFull - since} ms; last one ended at ${last - since} ms; crawl phase over at ${crawledMs.toFixed(0)} ms`,
    );
  } finally {
    await queue.close();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
