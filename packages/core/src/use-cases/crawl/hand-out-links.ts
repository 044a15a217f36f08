import type { Admission, CrawlFrontier, FrontierScope, PageLinks } from '../../crawl/crawl-frontier';
import { pageKeyOf } from '../../crawl/crawl-frontier';
import type { PageLoader } from '../../crawl/page-loader';
import { MAX_URL_LENGTH } from '../../crawl/link-bounds';
import { mapInTurns } from '../../crawl/next-turn';
import { normalizePageUrl } from '../../crawl/page-url';
import { readSitemapUrls } from '../../crawl/sitemap';
import { AppError } from '../../errors';
import type { JobPayload } from '../../jobs/registry';
import type { ChildJob, JobContext } from '../../jobs/workflow';
import { CrawlScope } from './crawl-scope';

const SITEMAP_MAX_BYTES = 10 * 1024 * 1024;

type PageJob = JobPayload<'crawl-page'>;

export interface HandOutDeps {
  frontier: CrawlFrontier;
  loader: PageLoader;
  now?: () => Date;
}

/** The job of one page of a crawl: keyed by its URL, so a page handed out twice is crawled once. */
export function pageJobOf(
  crawl: Pick<PageJob, 'crawlId' | 'renderer' | 'libraryId' | 'crawlDelayMs' | 'fanOut'>,
  url: string,
  seed = false,
): ChildJob {
  const { crawlId, renderer, libraryId, crawlDelayMs, fanOut } = crawl;
  return {
    key: pageKeyOf(url),
    name: 'crawl-page',
    payload: {
      crawlId,
      url,
      renderer,
      ...(fanOut ? { fanOut } : {}),
      ...(seed ? { seed } : {}),
      ...(libraryId === undefined ? {} : { libraryId }),
      ...(crawlDelayMs === undefined ? {} : { crawlDelayMs }),
    },
  };
}

/**
 * A page of a crawl that follows links, once it is done: its in-scope links (after the sitemap's URLs, for a seed
 * that asked for them) are admitted by the crawl's frontier. Returns the links as found, sitemap URLs first, and the
 * pages admitted, which the caller hands out at once (handOutPages), without waiting for the rest of the page's level.
 */
export async function admitLinks(
  deps: HandOutDeps,
  job: PageJob,
  ctx: JobContext,
  page: { finalUrl: string; links: string[] },
): Promise<{ links: string[]; admitted: string[]; notes: string[] }> {
  const scopeFacts = await deps.frontier.scope(job.crawlId);
  if (!scopeFacts) throw crawlGone(job.crawlId);
  const seed = job.seed === true;
  const scope = seed ? new CrawlScope(scopeFacts) : scopeOf(job.crawlId, scopeFacts);
  // As a breadth-first crawl did: the sitemap under the seed's own origin, then the seed's final origin joins.
  const { urls: sitemap, notes } =
    seed && scopeFacts.useSitemap
      ? await loadSitemap(deps.loader, scopeFacts.origins[0]!, ctx.signal)
      : { urls: [], notes: [] };
  const sitemapLinks = await mapInTurns(sitemap, (url) => scope.select([url]));
  const final = scope.noteFinalUrl(page.finalUrl, seed);
  ctx.signal.throwIfAborted();
  const [admission] = await admitInParts(deps.frontier, job.crawlId, ctx.signal, [
    {
      page: job.url,
      now: (deps.now ?? (() => new Date()))().getTime(),
      ...final,
      ...(sitemapLinks.length > 0 ? { sitemap: sitemapLinks } : {}),
      links: scope.select(page.links),
    },
  ]);
  const { admitted, found } = admission!;
  if (found > 0 || admitted.length > 0)
    await ctx.reportProgress({ add: { pagesDiscovered: found, total: admitted.length } });
  return { links: [...sitemap, ...page.links], admitted, notes };
}

/** Pages (or parts of one) whose links one frontier call admits at most: a call holds Redis while its script runs. */
const ADMISSION_BATCH = 50;
/** Links one frontier call admits at most: a few milliseconds of Redis's time, whatever a page or sitemap holds. */
export const ADMISSION_LINKS = 2_000;

/**
 * The admissions of several pages, made in calls of at most ADMISSION_BATCH parts and ADMISSION_LINKS links: a page
 * with more links is admitted in parts (its sitemap's first, then its own), one after the other, and its parts'
 * answers joined.
 */
export async function admitInParts(
  frontier: CrawlFrontier,
  crawlId: string,
  signal: AbortSignal,
  pages: PageLinks[],
): Promise<Admission[]> {
  const parts = pages.flatMap((page, index) => partsOf(page).map((part) => ({ index, part })));
  const answers: Admission[] = pages.map(() => ({ admitted: [], found: 0 }));
  for (const call of packCalls(parts, (part) => (part.part.sitemap?.length ?? 0) + part.part.links.length)) {
    signal.throwIfAborted();
    const admissions = await frontier.admitEach(
      crawlId,
      call.map(({ part }) => part),
    );
    admissions.forEach((admission, i) => {
      const answer = answers[call[i]!.index]!;
      for (const url of admission.admitted) answer.admitted.push(url);
      answer.found += admission.found;
    });
  }
  return answers;
}

/** A page's admission as parts of at most ADMISSION_LINKS links each: sitemap URLs first, then links. */
export function partsOf(page: PageLinks): PageLinks[] {
  const { sitemap = [], links, finalOrigin, finalUrl, ...common } = page;
  if (sitemap.length + links.length <= ADMISSION_LINKS) return [page];
  const parts: PageLinks[] = [];
  for (let i = 0; i < sitemap.length; i += ADMISSION_LINKS)
    parts.push({ ...common, sitemap: sitemap.slice(i, i + ADMISSION_LINKS), links: [] });
  for (let i = 0; i < links.length; i += ADMISSION_LINKS)
    parts.push({ ...common, links: links.slice(i, i + ADMISSION_LINKS) });
  return parts.map((part, i) => ({
    ...part,
    part: i,
    ...(i === 0 && finalOrigin ? { finalOrigin } : {}),
    ...(i === 0 && finalUrl ? { finalUrl } : {}),
  }));
}

/** Consecutive items packed into calls of at most ADMISSION_BATCH items and ADMISSION_LINKS links. */
export function packCalls<T>(items: T[], sizeOf: (item: T) => number): T[][] {
  const calls: T[][] = [];
  let call: T[] = [];
  let links = 0;
  for (const item of items) {
    const size = sizeOf(item);
    if (call.length > 0 && (call.length >= ADMISSION_BATCH || links + size > ADMISSION_LINKS)) {
      calls.push(call);
      call = [];
      links = 0;
    }
    call.push(item);
    links += size;
  }
  if (call.length > 0) calls.push(call);
  return calls;
}

/**
 * The links of several pages of a crawl (none of them its seed), admitted one page after the other in few calls to the
 * frontier. Returns the pages each admitted, for the caller to hand out.
 */
export async function admitLinksOfPages(
  deps: HandOutDeps,
  job: PageJob,
  ctx: JobContext,
  pages: Array<{ url: string; finalUrl: string; links: string[] }>,
): Promise<string[][]> {
  if (pages.length === 0) return [];
  const scopeFacts = await deps.frontier.scope(job.crawlId);
  if (!scopeFacts) throw crawlGone(job.crawlId);
  const scope = scopeOf(job.crawlId, scopeFacts);
  const now = (deps.now ?? (() => new Date()))().getTime();
  const inputs = pages.map((page) => ({
    page: page.url,
    now,
    ...scope.noteFinalUrl(page.finalUrl, false),
    links: scope.select(page.links),
  }));
  const admissions = await admitInParts(deps.frontier, job.crawlId, ctx.signal, inputs);
  const admitted = admissions.map((admission) => admission.admitted);
  const found = admissions.reduce((n, admission) => n + admission.found, 0);
  const total = admitted.reduce((n, urls) => n + urls.length, 0);
  if (found > 0 || total > 0) await ctx.reportProgress({ add: { pagesDiscovered: found, total } });
  return admitted;
}

const crawlGone = (crawlId: string) =>
  new AppError('CRAWL_GONE', `The crawl ${crawlId} is over or was never started`, 409, { retryable: false });

/** Compiled scopes (robots.txt parsed, path patterns built) of the crawls this process works on, newest last. */
const scopes = new Map<string, { origins: string; scope: CrawlScope }>();
const SCOPE_CACHE_SIZE = 32;

/** A crawl's scope, compiled once per process while its origins stay the same (only the seed's page adds one). */
function scopeOf(crawlId: string, facts: FrontierScope): CrawlScope {
  const origins = facts.origins.join(' ');
  const known = scopes.get(crawlId);
  if (known?.origins === origins) return known.scope;
  const scope = new CrawlScope(facts);
  scopes.delete(crawlId);
  if (scopes.size >= SCOPE_CACHE_SIZE) scopes.delete(scopes.keys().next().value!);
  scopes.set(crawlId, { origins, scope });
  return scope;
}

/** Adds pages to the crawl as jobs of their own. */
export async function addPageJobs(job: PageJob, ctx: JobContext, urls: string[]): Promise<void> {
  if (urls.length > 0) await ctx.addToWorkflow(urls.map((url) => pageJobOf(job, url)));
}

/** Hands out again what an earlier attempt of this page admitted, in case it stopped before adding the pages. */
export async function handOutAgain(deps: Pick<HandOutDeps, 'frontier'>, job: PageJob, ctx: JobContext): Promise<void> {
  const earlier = await deps.frontier.admittedBy(job.crawlId, job.url);
  if (earlier && earlier.length > 0) await addPageJobs(job, ctx, earlier);
}

async function loadSitemap(
  loader: PageLoader,
  origin: string,
  signal: AbortSignal,
): Promise<{ urls: string[]; notes: string[] }> {
  const fetchXml = (url: string) => loader.fetchSiteFile(url, { maxBytes: SITEMAP_MAX_BYTES, signal });
  const { urls, notes } = await readSitemapUrls(fetchXml, `${origin}/sitemap.xml`);
  const normalized = await mapInTurns(urls, (u): string[] => {
    const url = normalizePageUrl(u, origin);
    return url ? [url] : [];
  });
  return { urls: normalized.filter((u) => u.length <= MAX_URL_LENGTH), notes };
}
