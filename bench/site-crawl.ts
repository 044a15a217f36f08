/**
 * One whole-site crawl, measured: the request (asynchronous), its progress followed through the job's event stream
 * (each event timed as it arrives), the memory and CPU of each process tree of the deployment (each in a memory
 * cgroup of its own where one can be made), Redis's used_memory every second and its CPU, and the fixture server's
 * requests while it ran. A watchdog ends the measurement when the crawl runs past its time or memory limits.
 */
import type { JobPhase, JobProgress } from '@docshelf/core';
import { serveFixtures, type FixtureServer } from '@docshelf/testing/e2e/fixture-site';
import { openEventStream, type EventStream } from '@docshelf/testing/e2e/sse';
import type { MemoryCgroup } from './memory-cgroup';
import { cgroupFor, samplePeakMemory, type Peaks, type PeakSampler } from './process-tree';
import { watchRedis, type KeyGroup, type RedisFigures } from './redis-watch';

/** One request the fixture server answered: when (performance.now()), its path, and which client asked. */
export interface RequestEntry {
  at: number;
  path: string;
  /** The path with its query: `/reference/visibility-and-privacy.html?highlight=pub` is a URL of its own. */
  target: string;
  client: 'http' | 'chromium' | 'other';
}

export interface LoggedSite {
  /** The directory served. */
  root: string;
  server: FixtureServer;
  /** Every request so far, in order. */
  log: RequestEntry[];
}

/** Docshelf's HTTP fetcher names itself DocshelfBot; its Chromium keeps Chrome's own user agent. */
function clientOf(userAgent: string): RequestEntry['client'] {
  if (userAgent.startsWith('DocshelfBot')) return 'http';
  return userAgent.includes('Chrome') ? 'chromium' : 'other';
}

/** A directory served on 127.0.0.1 by the tests' fixture server, each request logged with its time and client. */
export async function serveLoggedSite(root: string): Promise<LoggedSite> {
  const log: RequestEntry[] = [];
  const server = await serveFixtures({
    root,
    routes: (req) => {
      const { pathname: path, search } = new URL(req.url ?? '/', 'http://x');
      log.push({
        at: performance.now(),
        path,
        target: path + search,
        client: clientOf(req.headers['user-agent'] ?? ''),
      });
      return false;
    },
  });
  return { root, server, log };
}

/** A request for a page (not robots.txt, a stylesheet or a script). */
export const isPage = (entry: RequestEntry) => entry.path.endsWith('.html') || entry.path.endsWith('/');

// ------------------------------------------------------------------------------------------------------ the crawl

/** The processes of one run: the API and its workers, and how to stop them. */
export interface Deployment {
  baseUrl: string;
  key: string;
  redisUrl: string;
  prefix: string;
  /** Process trees to measure, by label (`API`, `worker`, ...), with their root pids. */
  trees: Array<{ label: string; pid: number }>;
  /** Each worker's health server (its /metrics), by the label of its tree. */
  healthUrls: Record<string, string>;
  stop(): Promise<void>;
}

export interface CrawlResult {
  pagesDiscovered: number;
  pagesCrawled: number;
  pagesRendered: number;
  chunksIngested: number;
  errors: string[];
}

export interface TreeFigures {
  /** Peaks and CPU seconds over the whole job, and at the end of its crawling phase. */
  whole: Peaks;
  crawl?: Peaks;
  /** False where the cgroup counts only what the tree allocated after joining it (see memory-cgroup.ts). */
  cgroupMovesCharges?: boolean;
}

export interface CrawlRun {
  jobId?: string;
  outcome: 'completed' | 'failed' | 'cancelled' | 'aborted';
  /** Why a run did not complete: the job's error, or what the watchdog saw. */
  problem?: string;
  /** performance.now() when the crawl was requested; every `t` below is in ms from it. */
  postedAt: number;
  /** pagesCrawled + pagesFailed as the progress events told them. */
  timeline: Array<{ t: number; done: number; crawled: number }>;
  /** When each phase was first seen, and `end` when the job ended. */
  phaseAt: Partial<Record<JobPhase | 'end', number>>;
  /** The last progress of the crawling phase (its `total` is the pages handed out) and the last of all. */
  crawlProgress?: JobProgress;
  lastProgress?: JobProgress;
  result?: CrawlResult;
  trees: Record<string, TreeFigures>;
  redis?: RedisFigures;
  /** Redis's CPU seconds at the end of crawling, and the run's keys by kind then. */
  redisCrawlCpuS?: number;
  redisGroupsAtCrawlEnd?: KeyGroup[];
  /** The fixture server's requests from the crawl request to the end of the job. */
  requests: RequestEntry[];
}

export interface Limits {
  timeoutMs: number;
  /** The highest PSS (MB) a process tree may reach before the run is stopped. */
  maxPssMb: number;
}

/** What a hook may do while the crawl runs: measure one more process tree (a worker started to replace another). */
export interface CrawlControl {
  jobId: string;
  watch(label: string, pid: number): void;
}

export type ProgressHook = (progress: JobProgress, control: CrawlControl) => Promise<void> | void;

class Trees {
  private readonly watched = new Map<string, { sampler: PeakSampler; cgroup?: MemoryCgroup; crawl?: Peaks }>();

  watch(label: string, pid: number): void {
    const cgroup = cgroupFor(label.replace(/\W+/g, '-'));
    try {
      cgroup?.add(pid);
      cgroup?.resetPeak();
    } catch {
      /* the process is already gone */
    }
    this.watched.set(label, { sampler: samplePeakMemory(() => pid, cgroup), cgroup });
  }

  /** Marks the end of the crawling phase: each tree's peaks and CPU so far. */
  markCrawlEnd(): void {
    for (const tree of this.watched.values()) tree.crawl ??= tree.sampler.snapshot();
  }

  largestPss(): { label: string; mb: number } {
    let largest = { label: '', mb: 0 };
    for (const [label, tree] of this.watched) {
      const pss = tree.sampler.snapshot().pss;
      if (pss > largest.mb) largest = { label, mb: pss };
    }
    return largest;
  }

  stop(): Record<string, TreeFigures> {
    const figures: Record<string, TreeFigures> = {};
    for (const [label, tree] of this.watched) {
      figures[label] = {
        whole: tree.sampler.stop(),
        ...(tree.crawl ? { crawl: tree.crawl } : {}),
        ...(tree.cgroup ? { cgroupMovesCharges: tree.cgroup.movesCharges } : {}),
      };
      tree.cgroup?.remove();
    }
    return figures;
  }
}

const FINAL_EVENTS = new Set(['completed', 'failed', 'cancelled']);

/** Requests the crawl, follows it to its end (or the watchdog's), and returns what was measured. */
export async function measureCrawl(
  deployment: Deployment,
  body: Record<string, unknown>,
  site: LoggedSite,
  limits: Limits,
  onProgress?: ProgressHook,
): Promise<CrawlRun> {
  const trees = new Trees();
  deployment.trees.forEach(({ label, pid }) => trees.watch(label, pid));
  const firstRequest = site.log.length;
  const postedAt = performance.now();
  const redis = await watchRedis(deployment.redisUrl, deployment.prefix);
  const run: CrawlRun = { outcome: 'aborted', postedAt, timeline: [], phaseAt: {}, trees: {}, requests: [] };
  const auth = { authorization: `Bearer ${deployment.key}` };
  let stream: EventStream | undefined;
  let groupsAtCrawlEnd: Promise<KeyGroup[] | undefined> | undefined;
  let watchdog: NodeJS.Timeout | undefined;
  try {
    const accepted = await fetch(`${deployment.baseUrl}/api/crawl`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', prefer: 'respond-async', ...auth },
      body: JSON.stringify(body),
    });
    if (accepted.status !== 202)
      throw new Error(`POST /api/crawl answered ${accepted.status}: ${await accepted.text()}`);
    const jobId = ((await accepted.json()) as { jobId: string }).jobId;
    run.jobId = jobId;
    const control: CrawlControl = { jobId, watch: (label, pid) => trees.watch(label, pid) };
    // Hooks run one at a time, in the order of the events; a hook's failure ends the run.
    let hooks = Promise.resolve();
    let ended!: (final: { event: string; data: any } | Error) => void;
    const final = new Promise<{ event: string; data: any } | Error>((resolve) => (ended = resolve));
    const onEvent = (event: { event: string; data: any }) => {
      const t = performance.now() - postedAt;
      if (FINAL_EVENTS.has(event.event)) {
        run.phaseAt.end = t;
        ended(event);
        return;
      }
      const progress = event.data as JobProgress;
      run.lastProgress = progress;
      run.phaseAt[progress.phase] ??= t;
      if (progress.phase === 'crawling' || progress.phase === 'queued') {
        if (progress.phase === 'crawling') run.crawlProgress = progress;
        const crawled = progress.pagesCrawled ?? 0;
        run.timeline.push({ t, done: crawled + (progress.pagesFailed ?? 0), crawled });
      } else if (run.redisCrawlCpuS === undefined) {
        trees.markCrawlEnd();
        run.redisCrawlCpuS = redis.cpuS() ?? Number.NaN;
        groupsAtCrawlEnd = redis.groups().catch(() => undefined);
      }
      if (onProgress)
        hooks = hooks.then(() => onProgress(progress, control)).catch((error: unknown) => ended(error as Error));
    };
    stream = await openEventStream(`${deployment.baseUrl}/api/jobs/${jobId}/events`, auth, onEvent);
    // A stream that ends without a final event (the API restarted) is followed by polling instead.
    void stream.ended.then(() => pollUntilFinal(deployment, jobId, ended, () => run.phaseAt.end !== undefined));
    watchdog = setInterval(() => {
      const elapsed = performance.now() - postedAt;
      const largest = trees.largestPss();
      if (elapsed > limits.timeoutMs)
        ended(new Error(`still running after ${(elapsed / 60_000).toFixed(0)} min (the limit): stopped`));
      else if (largest.mb > limits.maxPssMb)
        ended(
          new Error(`${largest.label} reached ${largest.mb.toFixed(0)} MB PSS (limit ${limits.maxPssMb}): stopped`),
        );
    }, 1000);
    const outcome = await final;
    if (outcome instanceof Error) {
      run.problem = outcome.message;
      return run;
    }
    await hooks;
    const job = (await (await fetch(`${deployment.baseUrl}/api/jobs/${jobId}`, { headers: auth })).json()) as any;
    run.outcome = job.state;
    run.lastProgress = job.progress;
    if (job.state === 'completed') run.result = job.result as CrawlResult;
    else run.problem = job.error ? `${job.error.code}: ${job.error.error}` : `the job ended ${job.state}`;
    return run;
  } catch (error) {
    run.problem = (error as Error).message;
    return run;
  } finally {
    run.phaseAt.end ??= performance.now() - postedAt;
    clearInterval(watchdog);
    stream?.close();
    trees.markCrawlEnd();
    run.redisCrawlCpuS ??= redis.cpuS();
    run.trees = trees.stop();
    const groups = await groupsAtCrawlEnd;
    if (groups) run.redisGroupsAtCrawlEnd = groups;
    run.redis = await redis.stop().catch(() => undefined);
    run.requests = site.log.slice(firstRequest);
  }
}

async function pollUntilFinal(
  deployment: Deployment,
  jobId: string,
  ended: (final: { event: string; data: any } | Error) => void,
  over: () => boolean,
): Promise<void> {
  for (let failures = 0; failures < 30 && !over();) {
    try {
      const response = await fetch(`${deployment.baseUrl}/api/jobs/${jobId}`, {
        headers: { authorization: `Bearer ${deployment.key}` },
      });
      const job = (await response.json()) as { state: string };
      if (FINAL_EVENTS.has(job.state)) return ended({ event: job.state, data: job });
      failures = 0;
    } catch {
      failures += 1;
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  if (!over()) ended(new Error('the API stopped answering for 30 s'));
}
