import { z } from 'zod';
import type { RepetitionRule } from '../../crawl/repeated-blocks';
import { AppError } from '../../errors';
import { pageKeyOf, type CrawlFrontier } from '../../crawl/crawl-frontier';
import type { PageLoader } from '../../crawl/page-loader';
import { jobRegistry, type JobPayload, type JobResult } from '../../jobs/registry';
import type { ChildOutcome, JobContext, Step, Workflow } from '../../jobs/workflow';
import type { LibrarySwap, StagingStore } from '../../ports';
import {
  commitTargetOf,
  continueIndexAndBackUp,
  discardReplacement,
  finishingSchema,
  indexAndBackUp,
} from '../ingest/index-and-back-up';
import { commitCrawl, type CommitCrawlDeps } from './commit-crawl';
import { breadthFirstOrder } from './crawl-order';
import { CrawlScope, robotsRulesOf, seedsOf } from './crawl-scope';
import { pageJobOf } from './hand-out-links';
import { readStagedOutlines } from './staged-outlines';

/** SPEC: a crawled library is embedded automatically when it has this many chunks or fewer. */
export const CRAWL_AUTO_EMBED_LIMIT = 500;
const STALE_STAGING_MS = 24 * 3600_000;
const ROBOTS_MAX_BYTES = 512 * 1024;

/** What travels with the coordinator: URLs and counts, never page content. */
const crawlState = z.object({
  phase: z.enum(['crawling', 'indexing']),
  /** The seeds handed out when the crawl started; the pages they lead to join the crawl as they are found. */
  seeds: z.array(z.string()),
  /** In-scope URLs found (seeds and robots-disallowed ones included), once the pages are done. */
  discovered: z.number().int().min(0),
  /** The pages crawled, in breadth-first order from the seeds (the order their chunks are written in). */
  crawled: z.array(z.string()),
  failed: z.number().int().min(0),
  /** Of the pages crawled, those loaded in Chromium. */
  rendered: z.number().int().min(0).default(0),
  errors: z.array(z.string()),
  chunksIngested: z.number().int().min(0).default(0),
  /** When the crawl started (ms since the epoch), for CRAWL_MAX_DURATION_MS. */
  startedAt: z.number().int().optional(),
  /** Crawled pages unchanged since the library's last crawl. */
  unchanged: z.number().int().min(0).default(0),
  /** Pages that answered 404 or 410: a re-crawl drops what the library kept of them. */
  gone: z.array(z.string()).default([]),
  /** After the commit: where indexing, the swap of a replacement and the backup are. */
  finishing: finishingSchema.optional(),
});
type CrawlState = z.infer<typeof crawlState>;
type CrawlJob = JobPayload<'crawl-site'>;
type CrawlStep = Step<CrawlState, z.infer<(typeof jobRegistry)['crawl-site']['result']>>;

export interface CrawlSiteDeps extends CommitCrawlDeps {
  staging: CommitCrawlDeps['staging'] & Pick<StagingStore, 'discardStaging'>;
  loader: PageLoader;
  swap: LibrarySwap;
  /** Which pages of a crawl are known and handed out; its page jobs admit the links they find through it. */
  frontier: CrawlFrontier;
  /** Which lines are dropped as repeated chrome (minShare 0: none). */
  repetition?: RepetitionRule;
  now?: () => Date;
  /** CRAWL_MAX_DURATION_MS: past it, no further page is handed out and the crawl keeps what it has. */
  maxDurationMs?: number;
}

/**
 * The crawl coordinator: it starts a crawl (robots.txt, the seeds, the crawl's frontier with its budget, depth and
 * deadline), waits without holding a worker slot while the pages are crawled, and decides when the crawl is
 * complete. Each page job hands out the pages it found as soon as it is done (through the frontier, which applies
 * the crawl's rules atomically), so pages fan out as they are discovered rather than level by level; the
 * coordinator resumes once no page is left. A failed page becomes an `errors` entry. Then every staged page is
 * chunked and committed in one transaction.
 */
export function crawlSiteWorkflow(deps: CrawlSiteDeps): Workflow<'crawl-site', CrawlState> {
  return {
    state: crawlState,
    async step(job, state, children, ctx) {
      if (!state) return startCrawl(deps, job, ctx);
      if (state.phase === 'crawling') return afterPages(deps, job, state, children, ctx);
      const ingestion = { libraryId: job.libraryId, ingestionId: job.crawlId };
      const next = await continueIndexAndBackUp(
        deps,
        ingestion,
        state.finishing ?? { stage: 'indexing-and-backing-up' },
        children,
      );
      if ('wait' in next) return { state: { ...state, finishing: next.finishing }, wait: next.wait };
      const { vectorized } = next;
      await discardStaging(deps, job);
      return {
        done: {
          success: true,
          libraryId: job.libraryId,
          pagesDiscovered: state.discovered,
          pagesCrawled: state.crawled.length,
          pagesRendered: state.rendered,
          pagesUnchanged: state.unchanged,
          chunksIngested: state.chunksIngested,
          vectorized,
          errors: state.errors,
        },
      };
    },
    discard: async (job) => {
      await discardReplacement(deps, { ingestionId: job.crawlId, replace: job.replace });
      await discardStaging(deps, job);
    },
  };
}

async function startCrawl(deps: CrawlSiteDeps, job: CrawlJob, ctx: JobContext): Promise<CrawlStep> {
  const { seeds, discovery } = seedsOf(job);
  const origin = new URL(seeds[0]!).origin;
  const robotsTxt = job.options.respectRobotsTxt
    ? await deps.loader.fetchSiteFile(`${origin}/robots.txt`, { maxBytes: ROBOTS_MAX_BYTES, signal: ctx.signal })
    : null;
  const { includePaths, excludePaths, maxDepth, useSitemap } = job.options;
  const scope = new CrawlScope({ origins: [origin], includePaths, excludePaths, robotsTxt });
  const allowed = seeds.filter((url) => scope.allowedByRobots(url));
  const errors = seeds.filter((url) => !scope.allowedByRobots(url)).map((url) => `${url}: disallowed by robots.txt`);
  const budget = discovery ? job.options.maxPages : seeds.length;
  const level = allowed.slice(0, budget);
  const startedAt = (deps.now ?? (() => new Date()))().getTime();
  if (discovery) {
    const deadline = deps.maxDurationMs === undefined ? undefined : startedAt + deps.maxDurationMs;
    await deps.frontier.open(job.crawlId, {
      origins: [origin],
      includePaths,
      excludePaths,
      robotsTxt,
      useSitemap,
      found: seeds,
      scheduled: level,
      budget: budget - level.length,
      maxDepth,
      ...(deadline === undefined ? {} : { deadline }),
    });
  }
  const state: CrawlState = {
    phase: 'crawling',
    seeds: level,
    discovered: seeds.length,
    crawled: [],
    failed: 0,
    rendered: 0,
    errors,
    chunksIngested: 0,
    startedAt,
    unchanged: 0,
    gone: [],
  };
  if (level.length === 0) return commitPages(deps, job, state, ctx);
  await reportCrawl(
    ctx,
    { discovered: seeds.length, crawled: 0, failed: 0, rendered: 0, scheduled: level.length },
    errors,
  );
  const delaySeconds = robotsRulesOf(robotsTxt).crawlDelaySeconds;
  const crawl = {
    crawlId: job.crawlId,
    fanOut: discovery,
    renderer: job.options.renderer,
    libraryId: job.libraryId,
    ...(delaySeconds === undefined ? {} : { crawlDelayMs: Math.round(delaySeconds * 1000) }),
  };
  return { state, wait: level.map((url) => pageJobOf(crawl, url, discovery)) };
}

/** Every page handed out is done: count them in breadth-first order, then commit. */
async function afterPages(
  deps: CrawlSiteDeps,
  job: CrawlJob,
  state: CrawlState,
  children: ChildOutcome[],
  ctx: JobContext,
): Promise<CrawlStep> {
  const { discovery } = seedsOf(job);
  const summary = discovery ? await deps.frontier.summary(job.crawlId) : null;
  if (discovery && !summary) {
    throw new AppError(
      'CRAWL_STATE_LOST',
      `The frontier of crawl ${job.crawlId} is gone (expired, or Redis lost it)`,
      500,
      { retryable: false },
    );
  }
  const outcomes = new Map(children.map((c) => [c.key, c]));
  const pages = new Map<string, JobResult<'crawl-page'>>();
  const outcomeOf = (url: string) => outcomes.get(pageKeyOf(url));
  const revalidated = new Set<string>();
  for (const url of summary?.scheduled.map((s) => s.url) ?? state.seeds) {
    const outcome = outcomeOf(url);
    if (!outcome?.ok) continue;
    const page = jobRegistry['crawl-page'].result.parse(outcome.value);
    pages.set(url, page);
    page.revalidated?.forEach((u) => revalidated.add(u));
  }
  // Pages another page's job found unchanged with a conditional request: staged as such, their kept links with them.
  if (revalidated.size > 0) {
    for await (const outlines of readStagedOutlines(deps.staging, job.crawlId)) {
      for (const { url, unchanged } of outlines) {
        if (!unchanged || !revalidated.has(url) || pages.has(url)) continue;
        pages.set(url, { url, finalUrl: url, title: '', renderedWith: 'http', unchanged: true });
      }
    }
  }
  const order = summary
    ? await breadthFirstOrder(deps.staging, job.crawlId, state.seeds, summary, new Set(pages.keys()))
    : state.seeds;
  const crawled: string[] = [];
  const errors = [...state.errors];
  const gone: string[] = [];
  let failed = 0;
  let unchanged = 0;
  let rendered = 0;
  /** Failures the page jobs could not report themselves: a retryable error out of attempts, or no outcome. */
  const unreported: string[] = [];
  for (const url of order) {
    const page = pages.get(url);
    if (!page) {
      const outcome = outcomeOf(url);
      const failure = outcome && !outcome.ok ? outcome.error : undefined;
      failed += 1;
      const error = `${url}: ${failure ? failure.message : 'the page job left no outcome'}`;
      errors.push(error);
      if (!failure || failure.retryable) unreported.push(error);
      if (failure?.code === 'PAGE_GONE') gone.push(url);
      continue;
    }
    crawled.push(url);
    for (const note of page.notes ?? []) errors.push(`${url}: ${note}`);
    if (page.unchanged) unchanged += 1;
    if (page.renderedWith === 'browser') rendered += 1;
  }
  if (summary && summary.late > 0 && deps.maxDurationMs !== undefined) {
    errors.push(
      `crawl time limit of ${Math.round(deps.maxDurationMs / 1000)} s reached: ${summary.late} more pages were not crawled`,
    );
  }
  const discovered = summary?.found ?? seedsOf(job).seeds.length;
  const crawledState: CrawlState = { ...state, discovered, crawled, failed, rendered, errors, unchanged, gone };
  await reportCrawl(
    ctx,
    { discovered, crawled: crawled.length, failed, rendered, scheduled: order.length, unchanged },
    unreported,
    true,
  );
  return commitPages(deps, job, crawledState, ctx);
}

async function commitPages(deps: CrawlSiteDeps, job: CrawlJob, state: CrawlState, ctx: JobContext): Promise<CrawlStep> {
  const target = (replace: boolean) => commitTargetOf({ libraryId: job.libraryId, ingestionId: job.crawlId, replace });
  const commit = await commitCrawl(deps, job, state, ctx, target);
  const generate = job.options.embedAll || (await deps.libraries.countChunks(commit.target)) <= CRAWL_AUTO_EMBED_LIMIT;
  const { finishing, wait } = await indexAndBackUp(ctx, {
    libraryId: job.libraryId,
    ingestionId: job.crawlId,
    replace: commit.replace,
    chunks: commit.chunksIngested,
    generate,
    ...(commit.replace && state.unchanged > 0 ? { reuseVectorsOf: job.libraryId } : {}),
    ...(commit.removedChunkIds.length > 0 ? { dropChunkIds: commit.removedChunkIds } : {}),
  });
  return { state: { ...state, phase: 'indexing', chunksIngested: commit.chunksIngested, finishing }, wait };
}

/**
 * The counts at the start, and the exact counts once every page is done (assigned, so a page whose job ran twice after
 * its worker died is not left counted twice); page jobs add to them live in between.
 */
function reportCrawl(
  ctx: JobContext,
  counts: {
    discovered: number;
    crawled: number;
    failed: number;
    rendered: number;
    scheduled: number;
    unchanged?: number;
  },
  errors: string[] = [],
  final = false,
): Promise<void> {
  const pages = {
    pagesDiscovered: counts.discovered,
    pagesCrawled: counts.crawled,
    pagesFailed: counts.failed,
    pagesRendered: counts.rendered,
    ...(counts.unchanged === undefined ? {} : { pagesUnchanged: counts.unchanged }),
  };
  return ctx.reportProgress({
    ...(errors.length > 0 ? { errors } : {}),
    phase: 'crawling',
    set: { ...(final ? {} : pages), done: counts.crawled + counts.failed, total: counts.scheduled },
    ...(final ? { exact: pages } : {}),
  });
}

/** Also drops staging left behind by crawls that crashed long ago, and the crawl's frontier. */
async function discardStaging(deps: CrawlSiteDeps, job: CrawlJob): Promise<void> {
  const now = (deps.now ?? (() => new Date()))();
  await deps.staging.discardStaging(job.crawlId, new Date(now.getTime() - STALE_STAGING_MS));
  await deps.frontier.drop(job.crawlId);
}
