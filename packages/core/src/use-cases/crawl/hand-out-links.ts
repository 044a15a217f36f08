import type { CrawlFrontier } from '../../crawl/crawl-frontier';
import { pageKeyOf } from '../../crawl/crawl-frontier';
import type { PageLoader } from '../../crawl/page-loader';
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
  crawl: Pick<PageJob, 'crawlId' | 'discover' | 'renderer' | 'libraryId' | 'crawlDelayMs' | 'fanOut'>,
  url: string,
  seed = false,
): ChildJob {
  const { crawlId, discover, renderer, libraryId, crawlDelayMs, fanOut } = crawl;
  return {
    key: pageKeyOf(url),
    name: 'crawl-page',
    payload: {
      crawlId,
      url,
      discover,
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
 * that asked for them) are admitted by the crawl's frontier, and the pages it hands out are added to the crawl at
 * once, without waiting for the rest of the page's level. Returns the links as found, sitemap URLs first.
 */
export async function handOutLinks(
  deps: HandOutDeps,
  job: PageJob,
  ctx: JobContext,
  page: { finalUrl: string; links: string[] },
): Promise<string[]> {
  const scopeFacts = await deps.frontier.scope(job.crawlId);
  if (!scopeFacts)
    throw new AppError('CRAWL_GONE', `The crawl ${job.crawlId} is over or was never started`, 409, {
      retryable: false,
    });
  const scope = new CrawlScope(scopeFacts);
  const seed = job.seed === true;
  // As a breadth-first crawl did: the sitemap under the seed's own origin, then the seed's final origin joins.
  const sitemap =
    seed && scopeFacts.useSitemap ? await loadSitemap(deps.loader, scopeFacts.origins[0]!, ctx.signal) : [];
  const sitemapLinks = scope.select(sitemap);
  const final = scope.noteFinalUrl(page.finalUrl, seed);
  ctx.signal.throwIfAborted();
  const { admitted, found } = await deps.frontier.admit(job.crawlId, {
    page: job.url,
    now: (deps.now ?? (() => new Date()))().getTime(),
    ...final,
    ...(sitemapLinks.length > 0 ? { sitemap: sitemapLinks } : {}),
    links: scope.select(page.links),
  });
  if (admitted.length > 0) await ctx.addToWorkflow(admitted.map((url) => pageJobOf(job, url)));
  if (found > 0 || admitted.length > 0)
    await ctx.reportProgress({ add: { pagesDiscovered: found, total: admitted.length } });
  return [...sitemap, ...page.links];
}

/** Hands out again what an earlier attempt of this page admitted, in case it stopped before adding the pages. */
export async function handOutAgain(deps: Pick<HandOutDeps, 'frontier'>, job: PageJob, ctx: JobContext): Promise<void> {
  const earlier = await deps.frontier.admittedBy(job.crawlId, job.url);
  if (earlier && earlier.length > 0) await ctx.addToWorkflow(earlier.map((url) => pageJobOf(job, url)));
}

async function loadSitemap(loader: PageLoader, origin: string, signal: AbortSignal): Promise<string[]> {
  const fetchXml = (url: string) => loader.fetchSiteFile(url, { maxBytes: SITEMAP_MAX_BYTES, signal });
  return (await readSitemapUrls(fetchXml, `${origin}/sitemap.xml`)).flatMap((u) => normalizePageUrl(u, origin) ?? []);
}
