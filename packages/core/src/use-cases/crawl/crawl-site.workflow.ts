import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { z } from 'zod';
import { chunkMarkdown } from '../../chunking/chunk-markdown';
import { DEFAULT_REPETITION_RULE, dropRepeatedLines, findRepeatedKeys, repeatableKeysOf, type RepetitionRule } from '../../crawl/repeated-blocks';
import type { ChunkInput, StoredChunk } from '../../domain/types';
import { AppError } from '../../errors';
import type { PageLoader } from '../../crawl/page-loader';
import { normalizePageUrl } from '../../crawl/page-url';
import { readSitemapUrls } from '../../crawl/sitemap';
import { jobRegistry, type JobPayload } from '../../jobs/registry';
import type { ChildJob, ChildOutcome, JobContext, Step, Workflow } from '../../jobs/workflow';
import type { CrawledPage, LibrarySwap, RecordStore } from '../../ports';
import { commitTargetOf, continueIndexAndBackUp, discardReplacement, finishingSchema, indexAndBackUp } from '../index-and-back-up';
import { CrawlScope, robotsRulesOf, seedsOf } from './crawl-scope';

/** SPEC: a crawled library is embedded automatically when it has this many chunks or fewer. */
export const CRAWL_AUTO_EMBED_LIMIT = 500;
const STALE_STAGING_MS = 24 * 3600_000;
const ROBOTS_MAX_BYTES = 512 * 1024;
const SITEMAP_MAX_BYTES = 10 * 1024 * 1024;

/** What travels with the coordinator between levels: URLs and counts, never page content. */
const crawlState = z.object({
  phase: z.enum(['crawling', 'indexing']),
  depth: z.number().int().min(0),
  /** Pages that may still be handed out. */
  budget: z.number().int().min(0),
  origins: z.array(z.string()),
  found: z.array(z.string()),
  robotsTxt: z.string().nullable(),
  /** The level being crawled; page `i` of it is child `d<depth>.p<i>`. */
  level: z.array(z.string()),
  crawled: z.array(z.string()),
  failed: z.number().int().min(0),
  errors: z.array(z.string()),
  scheduled: z.number().int().min(0),
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

export interface CrawlSiteDeps {
  records: Pick<RecordStore, 'listStagedPages' | 'discardStaging' | 'commitIngestion' | 'countChunks' | 'listCrawledPages' | 'getChunks'>;
  loader: PageLoader;
  swap: LibrarySwap;
  /** Which lines are dropped as repeated chrome (minShare 0: none). */
  repetition?: RepetitionRule;
  now?: () => Date;
  /** CRAWL_MAX_DURATION_MS: past it, no further level is scheduled and the crawl keeps what it has. */
  maxDurationMs?: number;
}

/**
 * The crawl coordinator, the one place that decides which pages are fetched and when the crawl is complete. Each
 * level (breadth-first) runs as crawl-page jobs while the coordinator waits without holding a worker slot; a failed
 * page becomes an `errors` entry. When no level is left, every staged chunk is committed in one transaction.
 */
export function crawlSiteWorkflow(deps: CrawlSiteDeps): Workflow<'crawl-site', CrawlState> {
  return {
    state: crawlState,
    async step(job, state, children, ctx) {
      if (!state) return startCrawl(deps, job, ctx);
      if (state.phase === 'crawling') return afterLevel(deps, job, state, children, ctx);
      const ingestion = { libraryId: job.libraryId, ingestionId: job.crawlId };
      const next = await continueIndexAndBackUp(deps, ingestion, state.finishing ?? { stage: 'indexing-and-backing-up' }, children);
      if ('wait' in next) return { state: { ...state, finishing: next.finishing }, wait: next.wait };
      const { vectorized } = next;
      await discardStaging(deps, job);
      const { seeds, discovery } = seedsOf(job);
      return {
        done: {
          success: true,
          libraryId: job.libraryId,
          pagesDiscovered: discovery ? state.found.length : seeds.length,
          pagesCrawled: state.crawled.length,
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
  const scope = new CrawlScope(job, { origins: [origin], found: seeds, robotsTxt });
  const allowed = seeds.filter((url) => scope.allowedByRobots(url));
  const errors = seeds.filter((url) => !scope.allowedByRobots(url)).map((url) => `${url}: disallowed by robots.txt`);
  const budget = discovery ? job.options.maxPages : seeds.length;
  const level = allowed.slice(0, budget);
  const state: CrawlState = {
    phase: 'crawling',
    depth: 0,
    budget: budget - level.length,
    origins: [origin],
    found: seeds,
    robotsTxt,
    level,
    crawled: [],
    failed: 0,
    errors,
    scheduled: level.length,
    chunksIngested: 0,
    startedAt: (deps.now ?? (() => new Date()))().getTime(),
    unchanged: 0,
    gone: [],
  };
  if (level.length === 0) return commitCrawl(deps, job, state, ctx);
  await reportCrawl(ctx, state, seeds.length, errors);
  return { state, wait: pageJobs(job, state) };
}

async function afterLevel(deps: CrawlSiteDeps, job: CrawlJob, state: CrawlState, children: ChildOutcome[], ctx: JobContext): Promise<CrawlStep> {
  const { seeds, discovery } = seedsOf(job);
  const scope = new CrawlScope(job, state);
  const next: string[] = [];
  const crawled = [...state.crawled];
  const errors = [...state.errors];
  const gone = [...state.gone];
  let failed = state.failed;
  /** Failures the page jobs could not report themselves: a retryable error out of attempts, or no outcome. */
  const unreported: string[] = [];
  let unchanged = state.unchanged;
  if (state.depth === 0 && discovery && job.options.useSitemap) {
    (await loadSitemap(deps.loader, state.origins[0]!, ctx.signal)).forEach((url) => scope.admit(url, next));
  }
  state.level.forEach((url, i) => {
    const outcome = children.find((c) => c.key === pageKey(state.depth, i));
    if (!outcome?.ok) {
      failed += 1;
      const error = `${url}: ${outcome ? outcome.error.message : 'the page job left no outcome'}`;
      errors.push(error);
      if (!outcome || outcome.error.retryable) unreported.push(error);
      if (outcome?.error.code === 'PAGE_GONE') gone.push(url);
      return;
    }
    const page = jobRegistry['crawl-page'].result.parse(outcome.value);
    crawled.push(url);
    if (page.unchanged) unchanged += 1;
    scope.noteFinalUrl(page.finalUrl, state.depth === 0);
    page.links.forEach((link) => scope.admit(link, next));
  });
  let level = next.slice(0, state.budget);
  const elapsedMs = (deps.now ?? (() => new Date()))().getTime() - (state.startedAt ?? Date.now());
  if (level.length > 0 && deps.maxDurationMs !== undefined && elapsedMs >= deps.maxDurationMs) {
    errors.push(`crawl time limit of ${Math.round(deps.maxDurationMs / 1000)} s reached: ${level.length} more pages were not crawled`);
    level = [];
  }
  const advanced: CrawlState = {
    ...state,
    depth: state.depth + 1,
    budget: state.budget - level.length,
    origins: [...scope.origins],
    found: [...scope.found],
    level,
    crawled,
    failed,
    errors,
    scheduled: state.scheduled + level.length,
    unchanged,
    gone,
  };
  await reportCrawl(ctx, advanced, discovery ? scope.found.size : seeds.length, unreported);
  if (level.length === 0) return commitCrawl(deps, job, advanced, ctx);
  return { state: advanced, wait: pageJobs(job, advanced) };
}

async function commitCrawl(deps: CrawlSiteDeps, job: CrawlJob, state: CrawlState, ctx: JobContext): Promise<CrawlStep> {
  const { seeds } = seedsOf(job);
  const pages = await buildPages(deps, job, state);
  if (pages.chunks.length === 0 && pages.keptChunks === 0) {
    throw new AppError('NO_CONTENT', `No content could be extracted from ${seeds.join(', ')}`, 400, { retryable: false, details: state.errors });
  }
  await ctx.beginCommit();
  await ctx.reportProgress({ phase: 'committing', set: { done: 0, total: pages.chunks.length, pagesUnchanged: state.unchanged } });
  const ingestion = { libraryId: job.libraryId, ingestionId: job.crawlId, replace: job.replace };
  const target = commitTargetOf(ingestion);
  await deps.records.commitIngestion({
    library: { id: target, name: job.name, description: job.description, sourceUrl: seeds[0], sourceType: 'crawl' },
    ownerId: job.ownerId,
    chunks: pages.chunks,
    replace: job.replace,
    ingestionId: job.crawlId,
    now: (deps.now ?? (() => new Date()))(),
    crawledPages: pages.crawledPages,
    removeChunkIds: pages.removeChunkIds,
    removeCrawledPages: pages.removeCrawledPages,
  });
  const generate = (await deps.records.countChunks(target)) <= CRAWL_AUTO_EMBED_LIMIT;
  const chunksIngested = pages.chunks.length + pages.keptChunks;
  const { finishing, wait } = await indexAndBackUp(ctx, {
    ...ingestion,
    chunks: chunksIngested,
    generate,
    ...(job.replace && state.unchanged > 0 ? { reuseVectorsOf: job.libraryId } : {}),
    ...(pages.removeChunkIds.length > 0 ? { dropChunkIds: pages.removeChunkIds } : {}),
  });
  return { state: { ...state, phase: 'indexing', level: [], chunksIngested, finishing }, wait };
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
async function buildPages(deps: CrawlSiteDeps, job: CrawlJob, state: CrawlState): Promise<CrawlCommit> {
  const { records } = deps;
  const staged = new Map((await records.listStagedPages(job.crawlId)).map((page) => [page.url, page]));
  const known = new Map((await records.listCrawledPages(job.libraryId)).map((page) => [page.url, page]));
  const pages = state.crawled.flatMap((url) => {
    const page = staged.get(url);
    if (!page) return [];
    const lineKeys = page.page?.unchanged ? (known.get(url)?.lineKeys ?? []) : page.page ? (page.page.lineKeys ?? repeatableKeysOf(page.page)) : [];
    return [{ ...page, lineKeys }];
  });
  const rule = deps.repetition ?? DEFAULT_REPETITION_RULE;
  const repeated = rule.minShare > 0 ? findRepeatedKeys(pages.filter((page) => page.page).map((page) => page.lineKeys), rule) : new Set<string>();
  // A replacement copies the chunks of unchanged pages from the library: read in one query.
  const keptIds = job.replace ? pages.flatMap((page) => (page.page?.unchanged ? (known.get(page.url)?.chunkIds ?? []) : [])) : [];
  const kept = new Map((await records.getChunks(job.libraryId, keptIds)).map((chunk) => [chunk.id, toChunkInput(chunk)]));
  const seen = new Set<string>();
  const commit: CrawlCommit = { chunks: [], keptChunks: 0, crawledPages: [], removeChunkIds: [], removeCrawledPages: [] };
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
    if (validators) commit.crawledPages.push({ url: page.url, ...validators, chunkIds: chunks.map((c) => c.id), lineKeys: page.lineKeys, links });
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

const pageKey = (depth: number, index: number) => `d${depth}.p${index}`;

function pageJobs(job: CrawlJob, state: CrawlState): ChildJob[] {
  const discover = job.urls.length === 1 && state.depth < job.options.maxDepth;
  const delaySeconds = robotsRulesOf(state.robotsTxt).crawlDelaySeconds;
  const crawlDelayMs = delaySeconds === undefined ? undefined : Math.round(delaySeconds * 1000);
  return state.level.map((url, i) => ({
    key: pageKey(state.depth, i),
    name: 'crawl-page' as const,
    payload: { crawlId: job.crawlId, url, discover, renderer: job.options.renderer, libraryId: job.libraryId, ...(crawlDelayMs === undefined ? {} : { crawlDelayMs }) },
  }));
}

/** The coordinator knows the exact counts at each level; page jobs add to them live in between. */
function reportCrawl(ctx: JobContext, state: CrawlState, pagesDiscovered: number, errors: string[] = []): Promise<void> {
  return ctx.reportProgress({
    ...(errors.length > 0 ? { errors } : {}),
    phase: 'crawling',
    set: {
      pagesDiscovered,
      pagesCrawled: state.crawled.length,
      pagesFailed: state.failed,
      done: state.crawled.length + state.failed,
      total: state.scheduled,
    },
  });
}

async function loadSitemap(loader: PageLoader, origin: string, signal: AbortSignal): Promise<string[]> {
  const fetchXml = (url: string) => loader.fetchSiteFile(url, { maxBytes: SITEMAP_MAX_BYTES, signal });
  return (await readSitemapUrls(fetchXml, `${origin}/sitemap.xml`)).flatMap((u) => normalizePageUrl(u, origin) ?? []);
}

/** Also drops staging left behind by crawls that crashed long ago. */
async function discardStaging(deps: CrawlSiteDeps, job: CrawlJob): Promise<void> {
  const now = (deps.now ?? (() => new Date()))();
  await deps.records.discardStaging(job.crawlId, new Date(now.getTime() - STALE_STAGING_MS));
}
