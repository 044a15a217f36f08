import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { z } from 'zod';
import { chunkMarkdown } from '../../chunking/chunk-markdown';
import {
  DEFAULT_REPETITION_RULE,
  dropRepeatedLines,
  findRepeatedKeys,
  repeatableKeysOf,
  type RepetitionRule,
} from '../../crawl/repeated-blocks';
import type { ChunkInput, StoredChunk } from '../../domain/types';
import { AppError } from '../../errors';
import { pageKeyOf, type CrawlFrontier, type FrontierSummary } from '../../crawl/crawl-frontier';
import type { PageLoader } from '../../crawl/page-loader';
import { jobRegistry, type JobPayload, type JobResult } from '../../jobs/registry';
import type { ChildOutcome, JobContext, Step, Workflow } from '../../jobs/workflow';
import type { CrawledPage, LibrarySwap, RecordStore } from '../../ports';
import {
  commitTargetOf,
  continueIndexAndBackUp,
  discardReplacement,
  finishingSchema,
  indexAndBackUp,
} from '../index-and-back-up';
import { CrawlScope, robotsRulesOf, seedsOf } from './crawl-scope';
import { pageJobOf } from './hand-out-links';

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
type StagedPage = Awaited<ReturnType<RecordStore['listStagedPages']>>[number];

export interface CrawlSiteDeps {
  records: Pick<
    RecordStore,
    'listStagedPages' | 'discardStaging' | 'commitIngestion' | 'countChunks' | 'listCrawledPages' | 'getChunks'
  >;
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
  if (level.length === 0) return commitCrawl(deps, job, state, ctx);
  await reportCrawl(
    ctx,
    { discovered: seeds.length, crawled: 0, failed: 0, rendered: 0, scheduled: level.length },
    errors,
  );
  const delaySeconds = robotsRulesOf(robotsTxt).crawlDelaySeconds;
  const crawl = {
    crawlId: job.crawlId,
    discover: discovery,
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
  // Pages another page's job found unchanged with a conditional request: their kept links are in their staging.
  const staged = await deps.records.listStagedPages(job.crawlId);
  for (const { url, page } of staged) {
    if (!revalidated.has(url) || pages.has(url) || !page) continue;
    pages.set(url, {
      url,
      finalUrl: page.finalUrl,
      title: '',
      links: page.links,
      renderedWith: 'http',
      unchanged: true,
    });
  }
  const order = breadthFirstOrder(state.seeds, summary, pages);
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
    { discovered, crawled: crawled.length, failed, rendered, scheduled: order.length },
    unreported,
  );
  return commitCrawl(deps, job, crawledState, ctx, staged);
}

/**
 * The pages handed out, in the order a breadth-first crawl would have taken them: the seeds, then each page's links
 * (a seed's sitemap URLs first) as far as they were handed out, level by level. Pages fan out in whatever order
 * their jobs finish; this keeps the library's chunk order the same from one crawl to the next.
 */
function breadthFirstOrder(
  seeds: string[],
  summary: FrontierSummary | null,
  pages: Map<string, JobResult<'crawl-page'>>,
): string[] {
  if (!summary) return seeds;
  const handedOut = new Set(summary.scheduled.map((s) => s.url));
  const order = [...seeds];
  const depth = new Map(seeds.map((url) => [url, 0]));
  for (let i = 0; i < order.length; i++) {
    const url = order[i]!;
    const d = depth.get(url)!;
    // A seed's sitemap URLs are taken whatever maxDepth says; other pages lead on only above maxDepth.
    if (d > 0 && d >= summary.maxDepth) continue;
    for (const link of pages.get(url)?.links ?? []) {
      if (!handedOut.has(link) || depth.has(link)) continue;
      depth.set(link, d + 1);
      order.push(link);
    }
  }
  // Handed out along a path this order does not retrace (a retried page whose links changed): last, as handed out.
  return [...order, ...summary.scheduled.map((s) => s.url).filter((url) => !depth.has(url))];
}

async function commitCrawl(
  deps: CrawlSiteDeps,
  job: CrawlJob,
  state: CrawlState,
  ctx: JobContext,
  staged?: StagedPage[],
): Promise<CrawlStep> {
  const { seeds } = seedsOf(job);
  // A replacement that would be the library as it is, is committed in place: nothing to build aside and swap in.
  const replace = job.replace && !(await replacesNothing(deps, job, state));
  const pages = await buildPages(
    deps,
    { ...job, replace },
    state,
    staged ?? (await deps.records.listStagedPages(job.crawlId)),
  );
  if (pages.chunks.length === 0 && pages.keptChunks === 0) {
    throw new AppError('NO_CONTENT', `No content could be extracted from ${seeds.join(', ')}`, 400, {
      retryable: false,
      details: state.errors,
    });
  }
  await ctx.beginCommit();
  await ctx.reportProgress({
    phase: 'committing',
    set: { done: 0, total: pages.chunks.length, pagesUnchanged: state.unchanged },
  });
  const ingestion = { libraryId: job.libraryId, ingestionId: job.crawlId, replace };
  const target = commitTargetOf(ingestion);
  await deps.records.commitIngestion({
    library: { id: target, name: job.name, description: job.description, sourceUrl: seeds[0], sourceType: 'crawl' },
    ownerId: job.ownerId,
    chunks: pages.chunks,
    replace,
    ingestionId: job.crawlId,
    now: (deps.now ?? (() => new Date()))(),
    crawledPages: pages.crawledPages,
    removeChunkIds: pages.removeChunkIds,
    removeCrawledPages: pages.removeCrawledPages,
  });
  const generate = job.options.embedAll || (await deps.records.countChunks(target)) <= CRAWL_AUTO_EMBED_LIMIT;
  const chunksIngested = pages.chunks.length + pages.keptChunks;
  const { finishing, wait } = await indexAndBackUp(ctx, {
    ...ingestion,
    chunks: chunksIngested,
    generate,
    ...(replace && state.unchanged > 0 ? { reuseVectorsOf: job.libraryId } : {}),
    ...(pages.removeChunkIds.length > 0 ? { dropChunkIds: pages.removeChunkIds } : {}),
  });
  return { state: { ...state, phase: 'indexing', chunksIngested, finishing }, wait };
}

/**
 * Whether a `replace` crawl found the library exactly as it is: every page it keeps crawled again and unchanged, no
 * other page, no failure, and no chunk in the library beyond those pages' (one added by another ingestion).
 */
async function replacesNothing(deps: CrawlSiteDeps, job: CrawlJob, state: CrawlState): Promise<boolean> {
  if (!job.replace || state.failed > 0 || state.crawled.length === 0 || state.unchanged !== state.crawled.length)
    return false;
  const known = await deps.records.listCrawledPages(job.libraryId);
  const crawled = new Set(state.crawled);
  if (known.length !== crawled.size || !known.every((page) => crawled.has(page.url))) return false;
  const chunkIds = new Set(known.flatMap((page) => page.chunkIds));
  return (await deps.records.countChunks(job.libraryId)) === chunkIds.size;
}

interface CrawlCommit {
  /** The chunks to write, in crawl order. */
  chunks: ChunkInput[];
  /** Chunks of unchanged pages that stay where they are (an update leaves them in the library). */
  keptChunks: number;
  crawledPages: CrawledPage[];
  removeChunkIds: string[];
  removeCrawledPages: string[];
}

/**
 * What the crawl commits. Lines repeated on most of the crawl's pages are dropped (crawl/repeated-blocks.ts) before
 * the pages are chunked, counting the lines of unchanged pages as their last crawl kept them. An unchanged page keeps
 * its chunks: a replacement copies them from the library, an update leaves them alone. An update also removes the
 * chunks a changed page no longer has and those of pages now gone.
 */
async function buildPages(
  deps: CrawlSiteDeps,
  job: CrawlJob,
  state: CrawlState,
  stagedPages: StagedPage[],
): Promise<CrawlCommit> {
  const { records } = deps;
  const staged = new Map(stagedPages.map((page) => [page.url, page]));
  const known = new Map((await records.listCrawledPages(job.libraryId)).map((page) => [page.url, page]));
  const pages = state.crawled.flatMap((url) => {
    const page = staged.get(url);
    if (!page) return [];
    const lineKeys = page.page?.unchanged
      ? (known.get(url)?.lineKeys ?? [])
      : page.page
        ? (page.page.lineKeys ?? repeatableKeysOf(page.page))
        : [];
    return [{ ...page, lineKeys }];
  });
  const rule = deps.repetition ?? DEFAULT_REPETITION_RULE;
  const repeated =
    rule.minShare > 0
      ? findRepeatedKeys(
          pages.filter((page) => page.page).map((page) => page.lineKeys),
          rule,
        )
      : new Set<string>();
  // A replacement copies the chunks of unchanged pages from the library: read in one query.
  const keptIds = job.replace
    ? pages.flatMap((page) => (page.page?.unchanged ? (known.get(page.url)?.chunkIds ?? []) : []))
    : [];
  const kept = new Map(
    (await records.getChunks(job.libraryId, keptIds)).map((chunk) => [chunk.id, toChunkInput(chunk)]),
  );
  const seen = new Set<string>();
  const commit: CrawlCommit = {
    chunks: [],
    keptChunks: 0,
    crawledPages: [],
    removeChunkIds: [],
    removeCrawledPages: [],
  };
  const take = (chunks: ChunkInput[]) => {
    const fresh = chunks.filter((chunk) => !seen.has(chunk.id));
    fresh.forEach((chunk) => seen.add(chunk.id));
    return fresh;
  };
  for (const page of pages) {
    // A turn of the event loop per page: a large crawl's commit must not starve the job lock's renewal.
    await yieldToEventLoop();
    const before = known.get(page.url);
    if (!page.page) {
      commit.chunks.push(...take(page.chunks));
      continue;
    }
    const { finalUrl, title, links, validators } = page.page;
    if (page.page.unchanged && before) {
      const record = { ...before, ...validators, links };
      commit.crawledPages.push(record);
      if (job.replace) commit.chunks.push(...take(before.chunkIds.flatMap((id) => kept.get(id) ?? [])));
      else commit.keptChunks += take(before.chunkIds.map((id) => ({ id, content: '' }))).length;
      continue;
    }
    const markdown = dropRepeatedLines(page.page, repeated);
    const chunks = take(chunkMarkdown(markdown, { pageUrl: finalUrl, pageTitle: title }));
    commit.chunks.push(...chunks);
    if (validators)
      commit.crawledPages.push({
        url: page.url,
        ...validators,
        chunkIds: chunks.map((c) => c.id),
        lineKeys: page.lineKeys,
        links,
      });
    if (before && !job.replace) {
      const now = new Set(chunks.map((c) => c.id));
      commit.removeChunkIds.push(...before.chunkIds.filter((id) => !now.has(id)));
    }
  }
  if (!job.replace) {
    for (const url of state.gone) {
      const before = known.get(url);
      if (!before) continue;
      commit.removeChunkIds.push(...before.chunkIds.filter((id) => !seen.has(id)));
      commit.removeCrawledPages.push(url);
    }
  }
  return commit;
}

function toChunkInput(chunk: StoredChunk): ChunkInput {
  const { id, title, content, url, tokenCount } = chunk;
  return { id, content, tokenCount, ...(title === undefined ? {} : { title }), ...(url === undefined ? {} : { url }) };
}

/** Exact counts once the pages are done; page jobs add to them live before. */
function reportCrawl(
  ctx: JobContext,
  counts: { discovered: number; crawled: number; failed: number; rendered: number; scheduled: number },
  errors: string[] = [],
): Promise<void> {
  return ctx.reportProgress({
    ...(errors.length > 0 ? { errors } : {}),
    phase: 'crawling',
    set: {
      pagesDiscovered: counts.discovered,
      pagesCrawled: counts.crawled,
      pagesFailed: counts.failed,
      pagesRendered: counts.rendered,
      done: counts.crawled + counts.failed,
      total: counts.scheduled,
    },
  });
}

/** Also drops staging left behind by crawls that crashed long ago, and the crawl's frontier. */
async function discardStaging(deps: CrawlSiteDeps, job: CrawlJob): Promise<void> {
  const now = (deps.now ?? (() => new Date()))();
  await deps.records.discardStaging(job.crawlId, new Date(now.getTime() - STALE_STAGING_MS));
  await deps.frontier.drop(job.crawlId);
}
