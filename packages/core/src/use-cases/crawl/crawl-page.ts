import type { CrawlFrontier } from '../../crawl/crawl-frontier';
import { hostIntervalMs, REVALIDATION_TURN_SHARE, type HostThrottle, type PageLoader } from '../../crawl/page-loader';
import { repeatableKeysOf } from '../../crawl/repeated-blocks';
import { AppError } from '../../errors';
import type { JobPayload, JobResult } from '../../jobs/registry';
import type { JobContext } from '../../jobs/workflow';
import type { RecordStore } from '../../ports';
import { handOutAgain, handOutLinks } from './hand-out-links';

/** A page the site says is gone: a re-crawl drops what the library kept of it. */
export const PAGE_GONE_STATUSES = new Set([404, 410]);

/** Worker side of one crawl page. Only counts and links go back through Redis. */
export interface CrawlPageDeps {
  records: Pick<RecordStore, 'stagePage' | 'getCrawledPage'>;
  loader: PageLoader;
  now?: () => Date;
  /** Politeness across workers; absent = no spacing. */
  throttle?: HostThrottle;
  politeness?: { hostPagesPerSecond: number; crawlDelayMaxMs: number };
  /** Which pages of a crawl are known and handed out, shared by its page jobs on every worker. */
  frontier: CrawlFrontier;
}

/**
 * Load one page (conditionally, when the library's last crawl kept the page's validators), extract it and stage the
 * content. The commit drops lines repeated across the crawl's pages and chunks it; an unchanged page is staged as
 * such and keeps its chunks (and its kept links lead the crawl on). In a crawl that follows links, the pages this
 * one found are handed out as soon as it is staged; a retried page that gets that far hands out what its first
 * attempt admitted (the frontier answers the same), one that fails first hands it out as it fails.
 */
export async function crawlPage(
  deps: CrawlPageDeps,
  job: JobPayload<'crawl-page'>,
  ctx: JobContext,
): Promise<JobResult<'crawl-page'>> {
  try {
    const known = job.libraryId ? await deps.records.getCrawledPage(job.libraryId, job.url) : null;
    const owed = await takeTurn(deps, job, Boolean(known?.etag || known?.lastModified), ctx.signal);
    const page = await deps.loader.load(job.url, {
      renderer: job.renderer,
      signal: ctx.signal,
      ...(known ? { known } : {}),
    });
    if (owed > 0 && !page.notModified) await deps.throttle!.extendTurn(new URL(job.url).host, owed);
    if (page.status >= 400) {
      const code = PAGE_GONE_STATUSES.has(page.status) ? 'PAGE_GONE' : 'PAGE_HTTP_ERROR';
      throw new AppError(code, `HTTP ${page.status}`, 400, { retryable: false });
    }
    const now = (deps.now ?? (() => new Date()))();
    const base = { url: job.url, finalUrl: page.url, renderedWith: page.renderedWith };
    if (page.unchanged && known) {
      const staged = {
        finalUrl: page.url,
        title: '',
        markdown: '',
        landmark: false,
        links: known.links,
        validators: page.validators,
        unchanged: true,
      };
      await deps.records.stagePage({ stagingId: job.crawlId, url: job.url, chunks: [], page: staged, now });
      const links = job.fanOut
        ? await handOutLinks(deps, job, ctx, { finalUrl: page.url, links: known.links })
        : known.links;
      await ctx.reportProgress({ add: { done: 1, pagesCrawled: 1, pagesUnchanged: 1 } });
      return { ...base, title: '', links: job.discover ? links : [], unchanged: true };
    }
    const landmark = page.landmark ?? false;
    const lineKeys = repeatableKeysOf({ markdown: page.markdown, landmark });
    const content = {
      finalUrl: page.url,
      title: page.title,
      markdown: page.markdown,
      landmark,
      links: page.links,
      lineKeys,
    };
    await deps.records.stagePage({
      stagingId: job.crawlId,
      url: job.url,
      chunks: [],
      page: { ...content, ...(page.validators ? { validators: page.validators } : {}) },
      now,
    });
    const links = job.fanOut
      ? await handOutLinks(deps, job, ctx, { finalUrl: page.url, links: page.links })
      : page.links;
    await ctx.reportProgress({ add: { done: 1, pagesCrawled: 1 } });
    return { ...base, title: page.title, links: job.discover ? links : [] };
  } catch (error) {
    // An earlier attempt may have admitted links and stopped (its worker died) before adding the pages: added now.
    if (job.fanOut && !ctx.signal.aborted) await handOutAgain(deps, job, ctx).catch(() => undefined);
    // A page that fails for good counts now; the coordinator recounts exactly once every page is done anyway.
    if (error instanceof AppError && !error.retryable && error.code !== 'JOB_CANCELLED') {
      await ctx.reportProgress({ add: { done: 1, pagesFailed: 1 }, errors: [`${job.url}: ${error.message}`] });
    }
    throw error;
  }
}

/**
 * Waits for the host's turn. A conditional request waits for a share of it (REVALIDATION_TURN_SHARE); what it then owes
 * if the page comes whole is returned, to be taken once the answer is in.
 */
async function takeTurn(
  deps: CrawlPageDeps,
  job: JobPayload<'crawl-page'>,
  conditional: boolean,
  signal: AbortSignal,
): Promise<number> {
  if (!deps.throttle || !deps.politeness) return 0;
  const intervalMs = hostIntervalMs(
    deps.politeness.hostPagesPerSecond,
    job.crawlDelayMs,
    deps.politeness.crawlDelayMaxMs,
  );
  const share =
    conditional && job.crawlDelayMs === undefined ? Math.ceil(intervalMs * REVALIDATION_TURN_SHARE) : intervalMs;
  await deps.throttle.waitTurn(new URL(job.url).host, share, signal);
  return intervalMs - share;
}
