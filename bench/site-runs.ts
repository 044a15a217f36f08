/**
 * The whole-site benchmark's runs, each on a deployment of its own: the main crawl (npm start) and its bare HTTP
 * baseline, a worker killed mid-crawl, a crawl cancelled near its end, and two crawl workers sharing one crawl (with
 * a short run under politeness). Each returns what it measured; site-report.ts prints it.
 */
import { createHash } from 'node:crypto';
import { QUEUE_NAMES } from '@docshelf/core';
import { runBaseline, type Run } from './crawl.bench';
import { allChunks, metric, type ListedChunk } from './docshelf-service';
import { signalTree } from './process-tree';
import { redirectHops, redirectStubsOf } from './site-figures';
import { redisForRun, startNpmStart, startSeparate, type SeparateDeployment } from './site-deployments';
import {
  isPage,
  measureCrawl,
  type CrawlRun,
  type Deployment,
  type Limits,
  type LoggedSite,
  type RequestEntry,
} from './site-crawl';

export interface WholeSite {
  name: string;
  seedPath: string;
  maxPages: number;
  served: LoggedSite;
}

export interface RunSettings {
  /** SITE_BENCH_ENV with BENCH_SITE_ENV over it. */
  env: Record<string, string>;
  /** BENCH_SITE_ENV alone: it also wins over a run's own settings (the kill run's lock durations). */
  overrides: Record<string, string>;
  limits: Limits;
  /** A Redis to share (BENCH_SITE_REDIS_URL) instead of one of the run's own. */
  redisUrl?: string;
}

/** A chunk as the comparisons need it: its text as a hash. */
export interface ChunkDigest {
  id: string;
  url?: string;
  hash: string;
}

const digest = ({ id, url, content }: ListedChunk): ChunkDigest => ({
  id,
  ...(url ? { url } : {}),
  hash: createHash('sha1').update(content).digest('base64'),
});

/** Every link followed, as deep as the site goes (10 is the most a crawl may ask for); maxPages bounds the crawl. */
const MAX_DEPTH = 10;

function crawlBody(site: WholeSite, libraryId: string, maxPages = site.maxPages) {
  return {
    libraryId,
    name: `${site.name} (whole-site benchmark)`,
    urls: [`${site.served.server.origin}${site.seedPath}`],
    maxDepth: MAX_DEPTH,
    maxPages,
    renderer: 'auto',
  };
}

/** Starts a deployment on a Redis of the run's own, runs `fn`, and stops both whatever happens. */
async function withDeployment<D extends Deployment, T>(
  settings: RunSettings,
  start: (redisUrl: string) => Promise<D>,
  fn: (deployment: D) => Promise<T>,
): Promise<T> {
  const redis = await redisForRun(settings.redisUrl);
  try {
    const deployment = await start(redis.url);
    try {
      return await fn(deployment);
    } finally {
      await deployment.stop();
    }
  } finally {
    await redis.stop();
  }
}

async function chunksOf(deployment: Deployment, crawl: CrawlRun, libraryId: string) {
  if (crawl.outcome !== 'completed') return undefined;
  return (await allChunks(deployment.baseUrl, deployment.key, libraryId)).map(digest);
}

/** Pages Docshelf's HTTP fetcher asked for, each once, in the order it first asked: the list the baseline gets. */
export function visitedPages(requests: RequestEntry[], origin: string): string[] {
  const paths = requests.filter((r) => r.client === 'http' && isPage(r)).map((r) => r.target);
  return [...new Set(paths)].map((path) => `${origin}${path}`);
}

/**
 * Page paths Docshelf's HTTP fetcher asked for more than once: those a redirect stub crawled in the same run leads to
 * (Docshelf follows a stub's immediate meta refresh over HTTP, and crawls the target in its own right too), and others.
 */
export interface FetchedTwice {
  stubTargets: string[];
  others: string[];
}

export function fetchedTwice(site: WholeSite, requests: RequestEntry[]): FetchedTwice {
  const counts = new Map<string, number>();
  for (const r of requests) if (r.client === 'http' && isPage(r)) counts.set(r.target, (counts.get(r.target) ?? 0) + 1);
  const twice = [...counts].filter(([, n]) => n > 1).map(([path]) => path);
  const targets = new Set(redirectStubsOf(site.served.root, twice.length > 0 ? requests : []).values());
  return { stubTargets: twice.filter((p) => targets.has(p)), others: twice.filter((p) => !targets.has(p)) };
}

// -------------------------------------------------------------------------------------------------------------- main

export interface MainRun {
  crawl: CrawlRun;
  twice: FetchedTwice;
  chunks?: ChunkDigest[];
  /** The bare loop: Node's fetch and cheerio's load of the pages the crawl fetched, at the same concurrency. */
  baseline?: Run & { doneAt?: number[] };
  baselineProblem?: string;
}

export async function runMain(site: WholeSite, settings: RunSettings): Promise<MainRun> {
  const libraryId = `bench/${site.name}`;
  const { crawl, chunks } = await withDeployment(
    settings,
    (redisUrl) => startNpmStart(redisUrl, settings.env),
    async (deployment) => {
      const crawl = await measureCrawl(deployment, crawlBody(site, libraryId), site.served, settings.limits);
      return { crawl, chunks: await chunksOf(deployment, crawl, libraryId) };
    },
  );
  // After Docshelf has stopped, so that the two do not share the CPUs.
  const urls = visitedPages(crawl.requests, site.served.server.origin);
  const run = { crawl, twice: fetchedTwice(site, crawl.requests), ...(chunks ? { chunks } : {}) };
  try {
    return { ...run, baseline: await runBaseline('http-cheerio', urls) };
  } catch (error) {
    return { ...run, baselineProblem: (error as Error).message };
  }
}

// ------------------------------------------------------------------------------------------------------ worker kill

export interface KillRun {
  crawl: CrawlRun;
  killAt: number;
  /** performance.now() when the worker's tree was sent SIGKILL, and when its replacement was ready. */
  killedAt?: number;
  killedProcesses?: number;
  /** The crawl took the main run's stored pages as a list of URLs, this many. */
  pagesListed?: number;
  replacedAt?: number;
  chunks?: ChunkDigest[];
  twice: FetchedTwice;
}

/**
 * A shorter lock and stall check than the defaults (30 s, 15 s), so that a dead worker's page jobs are taken again
 * within 20 s; not so short that a live worker extracting one of rustdoc's megabyte pages on a loaded machine loses
 * its lock (5 s did: pages failed as stalled twice).
 */
export const KILL_ENV = { WORKER_LOCK_DURATION_MS: '15000', WORKER_STALLED_INTERVAL_MS: '5000' };

/**
 * The worker killed halfway through a crawl. Given the main run's chunks, the crawl takes exactly the pages the main
 * run stored (their URLs as a list: no discovery), so that its library can be held against the main run's chunk for
 * chunk: a discovering crawl's budget goes to links first come, first served, so two of them keep different pages.
 */
export async function runKill(site: WholeSite, settings: RunSettings, main?: MainRun): Promise<KillRun> {
  const libraryId = `bench/${site.name}-kill`;
  const pages = main?.chunks ? [...new Set(main.chunks.flatMap((c) => c.url ?? []))] : undefined;
  const killAt = Math.floor((pages?.length ?? site.maxPages) / 2);
  const run: Partial<KillRun> = { killAt, ...(pages ? { pagesListed: pages.length } : {}) };
  return withDeployment<SeparateDeployment, KillRun>(
    settings,
    (redisUrl) =>
      startSeparate(redisUrl, { ...settings.env, ...KILL_ENV, ...settings.overrides }, [{ label: 'worker' }]),
    async (deployment) => {
      let killed = false;
      const crawl = await measureCrawl(
        deployment,
        { ...crawlBody(site, libraryId), ...(pages ? { urls: pages } : {}) },
        site.served,
        settings.limits,
        async (progress, control) => {
          if (killed || (progress.pagesCrawled ?? 0) < killAt) return;
          killed = true;
          const worker = deployment.workers.get('worker')!;
          run.killedAt = performance.now();
          run.killedProcesses = signalTree(worker.child.pid!, 'SIGKILL').length;
          await worker.exited;
          const replacement = await deployment.addWorker('worker 2');
          run.replacedAt = performance.now();
          control.watch('worker 2', replacement.child.pid!);
        },
      );
      const chunks = await chunksOf(deployment, crawl, libraryId);
      return { ...run, killAt, crawl, twice: fetchedTwice(site, crawl.requests), ...(chunks ? { chunks } : {}) };
    },
  );
}

// ----------------------------------------------------------------------------------------------------------- cancel

export interface CancelRun {
  crawl: CrawlRun;
  cancelAt: number;
  /** performance.now() when DELETE /api/jobs/:id was sent and answered, its status and the state it answered. */
  sentAt?: number;
  answeredAt?: number;
  status?: number;
  answeredState?: string;
  /** Page requests the fixture server answered after the cancel was answered (5 s of watching after the job ended). */
  pagesAfter: RequestEntry[];
  /** GET /api/libraries/<id> after the cancel: 404 when the crawl left no library. */
  libraryStatus?: number;
}

/** How long the fixture server is watched for late requests once the job has ended. */
const LATE_REQUEST_WATCH_MS = 5_000;

export async function runCancel(site: WholeSite, settings: RunSettings): Promise<CancelRun> {
  const libraryId = `bench/${site.name}-cancel`;
  const cancelAt = Math.floor(site.maxPages * 0.9);
  const run: Partial<CancelRun> = {};
  return withDeployment(
    settings,
    (redisUrl) => startNpmStart(redisUrl, settings.env),
    async (deployment) => {
      let sent = false;
      const crawl = await measureCrawl(
        deployment,
        crawlBody(site, libraryId),
        site.served,
        settings.limits,
        async (progress, control) => {
          if (sent || (progress.pagesCrawled ?? 0) < cancelAt) return;
          sent = true;
          run.sentAt = performance.now();
          const response = await fetch(`${deployment.baseUrl}/api/jobs/${control.jobId}`, {
            method: 'DELETE',
            headers: { authorization: `Bearer ${deployment.key}` },
          });
          run.answeredAt = performance.now();
          run.status = response.status;
          run.answeredState = ((await response.json()) as { state?: string }).state;
        },
      );
      await new Promise((r) => setTimeout(r, LATE_REQUEST_WATCH_MS));
      const answeredAt = run.answeredAt ?? Number.POSITIVE_INFINITY;
      const library = await fetch(`${deployment.baseUrl}/api/libraries/${libraryId}`, {
        headers: { authorization: `Bearer ${deployment.key}` },
      });
      return {
        ...run,
        cancelAt,
        crawl,
        pagesAfter: site.served.log.filter((r) => r.at > answeredAt && isPage(r)),
        libraryStatus: library.status,
      };
    },
  );
}

// ------------------------------------------------------------------------------------------------------ two workers

export interface WorkerShare {
  fetched: number;
  failed: number;
  rendered: number;
}

export interface TwoWorkersRun {
  crawl: CrawlRun;
  /** Each crawl worker's /metrics counters after the crawl. */
  shares: Record<string, WorkerShare>;
  twice: FetchedTwice;
}

const OTHER_QUEUES = QUEUE_NAMES.filter((queue) => queue !== 'crawl').join(',');
const TWO_CRAWL_WORKERS = [
  { label: 'worker (other queues)', env: { WORKER_QUEUES: OTHER_QUEUES } },
  { label: 'crawl worker 1', env: { WORKER_QUEUES: 'crawl' } },
  { label: 'crawl worker 2', env: { WORKER_QUEUES: 'crawl' } },
];

async function crawlWithTwoWorkers(
  site: WholeSite,
  settings: RunSettings,
  libraryId: string,
  maxPages: number,
  env: Record<string, string> = {},
): Promise<TwoWorkersRun> {
  return withDeployment(
    settings,
    (redisUrl) => startSeparate(redisUrl, { ...settings.env, ...env }, TWO_CRAWL_WORKERS),
    async (deployment) => {
      const crawl = await measureCrawl(deployment, crawlBody(site, libraryId, maxPages), site.served, settings.limits);
      const shares: Record<string, WorkerShare> = {};
      for (const { label } of TWO_CRAWL_WORKERS.filter((w) => w.env.WORKER_QUEUES === 'crawl')) {
        const url = deployment.healthUrls[label]!;
        shares[label] = {
          fetched: await metric(url, 'crawl_pages_fetched_total'),
          failed: await metric(url, 'crawl_pages_failed_total'),
          rendered: await metric(url, 'crawl_pages_rendered_total'),
        };
      }
      return { crawl, shares, twice: fetchedTwice(site, crawl.requests) };
    },
  );
}

export const runTwoWorkers = (site: WholeSite, settings: RunSettings) =>
  crawlWithTwoWorkers(site, settings, `bench/${site.name}-two-workers`, site.maxPages);

export interface PoliteRun extends TwoWorkersRun {
  pagesPerSecond: number;
  /** Requests that followed a redirect stub's meta refresh within the same page job (they take no turn of their own). */
  hops: Set<RequestEntry>;
}

/** The two crawl workers again, for a few hundred pages, with CRAWL_HOST_PAGES_PER_SECOND on. */
export async function runPolite(
  site: WholeSite,
  settings: RunSettings,
  pages: number,
  pagesPerSecond: number,
): Promise<PoliteRun> {
  const env = { CRAWL_HOST_PAGES_PER_SECOND: String(pagesPerSecond) };
  const run = await crawlWithTwoWorkers(site, settings, `bench/${site.name}-polite`, pages, env);
  const hops = redirectHops(run.crawl.requests, redirectStubsOf(site.served.root, run.crawl.requests));
  return { ...run, pagesPerSecond, hops };
}
