/**
 * Refresh: a first crawl of the 150-page fixture site against a re-crawl of the unchanged site, per renderer, in one
 * run on one service (API, worker, SQLite and Redis in one process, the site on 127.0.0.1 with ETag and
 * Last-Modified). Embedding calls are counted on the worker's embedder. Both crawls run with the same
 * CRAWL_HOST_PAGES_PER_SECOND (0 = no politeness spacing unless RECRAWL_HOST_PAGES_PER_SECOND says otherwise): this
 * measures the crawler, not the throttle. A crawl's time is its job's, from its record (created to finished); each
 * crawl is also followed through its job's progress, so the time of each phase (crawling, committing, indexing and the
 * rest) is printed too, with the CPU time of the process (API, worker and site together) over the crawl. A one-page
 * crawl of another library first starts what a running worker already has (Chromium, the extraction threads), so the
 * first crawl is not charged for it. RECRAWL_RENDERERS (comma-separated, default browser,auto,http) picks renderers.
 */
import request from 'supertest';
import { generateDocsSite } from '../test/fixtures/generated-docs-site';
import { serveFixtures } from '@docshelf/testing/e2e/fixture-site';
import { startHarness } from '@docshelf/testing/e2e/harness';

const RENDERERS = ['browser', 'auto', 'http'] as const;
type Renderer = (typeof RENDERERS)[number];
const PHASE_POLL_MS = 50;

interface Crawl {
  /** From the job's creation to its end, as its record says. */
  ms: number;
  body: { pagesCrawled: number; pagesUnchanged: number; chunksIngested: number; errors: string[] };
  calls: number;
  texts: number;
  /** Milliseconds from the request to the first sight of each phase, in order (polled every PHASE_POLL_MS). */
  phases: Array<[string, number]>;
  /** When the poll saw the crawl done, ms after the request (the end of the last phase shown). */
  polledMs: number;
  /** CPU time of this process (API, worker, the site) over the crawl, ms. */
  cpuMs: number;
}

export async function benchRecrawl(): Promise<void> {
  const pagesPerSecond = process.env.RECRAWL_HOST_PAGES_PER_SECOND ?? '0';
  const renderers = (process.env.RECRAWL_RENDERERS?.split(',') ?? RENDERERS).filter((r): r is Renderer =>
    (RENDERERS as readonly string[]).includes(r),
  );
  const h = await startHarness({
    PRIVATE_HOST_ALLOWLIST: '127.0.0.1',
    CRAWL_WAIT_TIMEOUT_MS: '600000',
    JOB_WAIT_TIMEOUT_MS: '600000',
    CRAWL_HOST_PAGES_PER_SECOND: pagesPerSecond,
  });
  const docs = generateDocsSite();
  const site = await serveFixtures({ routes: docs.route });
  let calls = 0;
  let texts = 0;
  const embed = h.adapters.embedder.embed.bind(h.adapters.embedder);
  h.adapters.embedder.embed = async (batch, scope) => {
    if (scope?.kind === 'document') {
      calls += 1;
      texts += batch.length;
    }
    return embed(batch, scope);
  };
  try {
    const auth = { Authorization: `Bearer ${await h.createKey('admin')}` };
    console.log(
      `\nre-crawl of the unchanged 150-page fixture site (replace: true) against its first crawl, ` +
        `CRAWL_HOST_PAGES_PER_SECOND=${pagesPerSecond} for both${pagesPerSecond === '0' ? ' (no politeness spacing: the crawler, not the throttle)' : ''}`,
    );
    for (const renderer of renderers) {
      const crawl = async (): Promise<Crawl> => {
        calls = 0;
        texts = 0;
        const started = performance.now();
        const cpu = process.cpuUsage();
        const body = {
          libraryId: `bench/recrawl-${renderer}`,
          name: 'Widgetry',
          urls: [`${site.origin}${docs.indexPath}`],
          replace: true,
          renderer,
        };
        const accepted = await request(h.app)
          .post('/api/crawl')
          .set(auth)
          .set('Prefer', 'respond-async')
          .send(body)
          .expect(202);
        const phases: Array<[string, number]> = [];
        for (;;) {
          const job = (await request(h.app).get(`/api/jobs/${accepted.body.jobId}`).set(auth).expect(200)).body;
          const at = performance.now() - started;
          if (phases.at(-1)?.[0] !== job.progress.phase) phases.push([job.progress.phase, at]);
          if (job.state === 'completed') {
            const used = process.cpuUsage(cpu);
            // From the job's own record: the poll that sees the end comes up to PHASE_POLL_MS later.
            const ms = Date.parse(job.finishedAt) - Date.parse(job.createdAt);
            const cpuMs = (used.user + used.system) / 1000;
            return { ms, polledMs: at, body: job.result, calls, texts, phases, cpuMs };
          }
          if (job.state !== 'queued' && job.state !== 'running')
            throw new Error(`crawl ${job.state}: ${JSON.stringify(job.error)}`);
          await new Promise((resolve) => setTimeout(resolve, PHASE_POLL_MS));
        }
      };
      // Not timed: starts what a running worker already has (Chromium, the extraction threads).
      const warmUp = {
        libraryId: `bench/recrawl-warm-up-${renderer}`,
        name: 'Warm-up',
        urls: [`${site.origin}${docs.paths[1]}`],
        renderer,
      };
      await request(h.app).post('/api/crawl').set(auth).send(warmUp).expect(200);
      const first = await crawl();
      const again = await crawl();
      const line = (name: string, r: Crawl) =>
        `${name.padEnd(34)} ${(r.ms / 1000).toFixed(2).padStart(7)} s  pages ${r.body.pagesCrawled}  unchanged ${String(r.body.pagesUnchanged).padStart(3)}  ` +
        `chunks ${r.body.chunksIngested}  errors ${r.body.errors.length}  embedding calls ${r.calls} (${r.texts} texts)  CPU ${r.cpuMs.toFixed(0)} ms`;
      const phaseLine = (r: Crawl) =>
        `${''.padEnd(36)}phases: ${r.phases.map(([phase, at], i) => `${phase} ${(((r.phases[i + 1]?.[1] ?? r.polledMs) - at) / 1000).toFixed(2)} s`).join(', ')}`;
      console.log(line(`renderer ${renderer}: first crawl`, first));
      console.log(phaseLine(first));
      console.log(
        `${line(`renderer ${renderer}: unchanged re-crawl`, again)} | ${(first.ms / again.ms).toFixed(1)}x faster (target ≥ 5x)`,
      );
      console.log(phaseLine(again));
    }
  } finally {
    await site.close();
    await h.close();
  }
}

if (require.main === module) {
  benchRecrawl().then(
    () => process.exit(0),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
