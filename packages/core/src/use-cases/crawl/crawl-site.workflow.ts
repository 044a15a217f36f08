import { z } from 'zod';
import type { ChunkInput } from '../../domain/types';
import { AppError } from '../../errors';
import type { PageLoader } from '../../crawl/page-loader';
import { normalizePageUrl } from '../../crawl/page-url';
import { parseSitemapUrls } from '../../crawl/sitemap';
import { jobRegistry, type JobPayload } from '../../jobs/registry';
import type { ChildJob, ChildOutcome, JobContext, Step, Workflow } from '../../jobs/workflow';
import type { LibrarySwap, RecordStore } from '../../ports';
import { commitTargetOf, continueIndexAndBackUp, discardReplacement, finishingSchema, indexAndBackUp } from '../index-and-back-up';
import { CrawlScope, seedsOf } from './crawl-scope';

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
  /** After the commit: where indexing, the swap of a replacement and the backup are. */
  finishing: finishingSchema.optional(),
});
type CrawlState = z.infer<typeof crawlState>;
type CrawlJob = JobPayload<'crawl-site'>;
type CrawlStep = Step<CrawlState, z.infer<(typeof jobRegistry)['crawl-site']['result']>>;

export interface CrawlSiteDeps {
  records: Pick<RecordStore, 'listStagedPages' | 'discardStaging' | 'commitIngestion' | 'countChunks'>;
  loader: PageLoader;
  swap: LibrarySwap;
  now?: () => Date;
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
  };
  if (level.length === 0) return commitCrawl(deps, job, state, ctx);
  await reportCrawl(ctx, state, seeds.length);
  return { state, wait: pageJobs(job, state) };
}

async function afterLevel(deps: CrawlSiteDeps, job: CrawlJob, state: CrawlState, children: ChildOutcome[], ctx: JobContext): Promise<CrawlStep> {
  const { seeds, discovery } = seedsOf(job);
  const scope = new CrawlScope(job, state);
  const next: string[] = [];
  const crawled = [...state.crawled];
  const errors = [...state.errors];
  let failed = state.failed;
  if (state.depth === 0 && discovery && job.options.useSitemap) {
    (await loadSitemap(deps.loader, state.origins[0]!, ctx.signal)).forEach((url) => scope.admit(url, next));
  }
  state.level.forEach((url, i) => {
    const outcome = children.find((c) => c.key === pageKey(state.depth, i));
    if (!outcome?.ok) {
      failed += 1;
      errors.push(`${url}: ${outcome ? outcome.error.message : 'the page job left no outcome'}`);
      return;
    }
    const page = jobRegistry['crawl-page'].result.parse(outcome.value);
    crawled.push(url);
    scope.noteFinalUrl(page.finalUrl, state.depth === 0);
    page.links.forEach((link) => scope.admit(link, next));
  });
  const level = next.slice(0, state.budget);
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
  };
  await reportCrawl(ctx, advanced, discovery ? scope.found.size : seeds.length);
  if (level.length === 0) return commitCrawl(deps, job, advanced, ctx);
  return { state: advanced, wait: pageJobs(job, advanced) };
}

async function commitCrawl(deps: CrawlSiteDeps, job: CrawlJob, state: CrawlState, ctx: JobContext): Promise<CrawlStep> {
  const { seeds } = seedsOf(job);
  const chunks = await collectChunks(deps.records, job.crawlId, state.crawled);
  if (chunks.length === 0) {
    throw new AppError('NO_CONTENT', `No content could be extracted from ${seeds.join(', ')}`, 400, { retryable: false, details: state.errors });
  }
  await ctx.beginCommit();
  await ctx.reportProgress({ phase: 'committing', set: { done: 0, total: chunks.length } });
  const ingestion = { libraryId: job.libraryId, ingestionId: job.crawlId, replace: job.replace };
  const target = commitTargetOf(ingestion);
  await deps.records.commitIngestion({
    library: { id: target, name: job.name, description: job.description, sourceUrl: seeds[0], sourceType: 'crawl' },
    ownerId: job.ownerId,
    chunks,
    replace: job.replace,
    ingestionId: job.crawlId,
    now: (deps.now ?? (() => new Date()))(),
  });
  const generate = (await deps.records.countChunks(target)) <= CRAWL_AUTO_EMBED_LIMIT;
  const { finishing, wait } = await indexAndBackUp(ctx, { ...ingestion, chunks: chunks.length, generate });
  return { state: { ...state, phase: 'indexing', level: [], chunksIngested: chunks.length, finishing }, wait };
}

const pageKey = (depth: number, index: number) => `d${depth}.p${index}`;

function pageJobs(job: CrawlJob, state: CrawlState): ChildJob[] {
  const discover = job.urls.length === 1 && state.depth < job.options.maxDepth;
  return state.level.map((url, i) => ({
    key: pageKey(state.depth, i),
    name: 'crawl-page' as const,
    payload: { crawlId: job.crawlId, url, discover, renderer: job.options.renderer },
  }));
}

/** The coordinator knows the exact counts at each level; page jobs add to them live in between. */
function reportCrawl(ctx: JobContext, state: CrawlState, pagesDiscovered: number): Promise<void> {
  return ctx.reportProgress({
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

/** Chunks in crawl order; a chunk id seen twice (two URLs serving one page) is kept once. */
async function collectChunks(records: CrawlSiteDeps['records'], crawlId: string, crawled: string[]): Promise<ChunkInput[]> {
  const staged = new Map((await records.listStagedPages(crawlId)).map((page) => [page.url, page.chunks]));
  const seen = new Set<string>();
  const chunks: ChunkInput[] = [];
  for (const url of crawled) {
    for (const chunk of staged.get(url) ?? []) {
      if (seen.has(chunk.id)) continue;
      seen.add(chunk.id);
      chunks.push(chunk);
    }
  }
  return chunks;
}

async function loadSitemap(loader: PageLoader, origin: string, signal: AbortSignal): Promise<string[]> {
  const xml = await loader.fetchSiteFile(`${origin}/sitemap.xml`, { maxBytes: SITEMAP_MAX_BYTES, signal });
  return xml === null ? [] : parseSitemapUrls(xml).flatMap((u) => normalizePageUrl(u, origin) ?? []);
}

/** Also drops staging left behind by crawls that crashed long ago. */
async function discardStaging(deps: CrawlSiteDeps, job: CrawlJob): Promise<void> {
  const now = (deps.now ?? (() => new Date()))();
  await deps.records.discardStaging(job.crawlId, new Date(now.getTime() - STALE_STAGING_MS));
}
