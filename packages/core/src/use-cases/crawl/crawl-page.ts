import type { CrawlFrontier } from '../../crawl/crawl-frontier';
import type { PageLoader } from '../../crawl/page-loader';
import { repeatableKeysInTurns } from '../../crawl/repeated-blocks';
import { boundLinks } from '../../crawl/link-bounds';
import { AppError } from '../../errors';
import type { JobPayload, JobResult } from '../../jobs/registry';
import type { JobContext } from '../../jobs/workflow';
import type { StagingStore } from '../../ports';
import { handOutLinks, stageUnchanged } from './hand-out-pages';
import { handOutAgain } from './hand-out-links';
import { takeRestOfTurn, takeTurn, type PolitenessDeps } from './host-turns';

/** A page the site says is gone: a re-crawl drops what the library kept of it. */
export const PAGE_GONE_STATUSES = new Set([404, 410]);

/** Worker side of one crawl page. Only counts and links go back through Redis. */
export interface CrawlPageDeps extends PolitenessDeps {
  staging: Pick<StagingStore, 'stagePage' | 'getCrawledPage'>;
  loader: PageLoader;
  now?: () => Date;
  /** Which pages of a crawl are known and handed out, shared by its page jobs on every worker. */
  frontier: CrawlFrontier;
}

/**
 * Load one page (conditionally, when the library's last crawl kept the page's validators), extract it and stage the
 * content. The commit drops lines repeated across the crawl's pages and chunks it; an unchanged page is staged as
 * such and keeps its chunks (and its kept links lead the crawl on). In a crawl that follows links, the pages this
 * one found are handed out as soon as it is staged (the known ones asked for conditionally here first, see
 * handOutLinks); a retried page that gets that far hands out what its first attempt admitted (the frontier answers
 * the same), one that fails first hands it out as it fails.
 */
export async function crawlPage(
  deps: CrawlPageDeps,
  job: JobPayload<'crawl-page'>,
  ctx: JobContext,
): Promise<JobResult<'crawl-page'>> {
  try {
    const known = job.libraryId ? await deps.staging.getCrawledPage(job.libraryId, job.url) : null;
    const owed = await takeTurn(deps, job, Boolean(known?.etag || known?.lastModified), ctx.signal);
    const page = await deps.loader.load(job.url, {
      renderer: job.renderer,
      signal: ctx.signal,
      ...(known ? { known } : {}),
    });
    const fetchedAt = (deps.now ?? (() => new Date()))();
    if (!page.notModified) await takeRestOfTurn(deps, job.url, owed);
    if (page.status >= 400) {
      const code = PAGE_GONE_STATUSES.has(page.status) ? 'PAGE_GONE' : 'PAGE_HTTP_ERROR';
      throw new AppError(code, `HTTP ${page.status}`, 400, { retryable: false });
    }
    const base = { url: job.url, finalUrl: page.url, renderedWith: page.renderedWith };
    const handOut = (links: string[]) =>
      job.fanOut
        ? handOutLinks(deps, job, ctx, { finalUrl: page.url, links })
        : Promise.resolve({ links, revalidated: [], notes: [] as string[] });
    const found = (handedOut: { revalidated: string[] }) =>
      handedOut.revalidated.length > 0 ? { revalidated: handedOut.revalidated } : {};
    // What the crawl's errors say of a page that was crawled all the same: shown live, and kept in the result.
    const noted = (notes: string[]) => ({
      progress: notes.length > 0 ? { errors: notes.map((note) => `${job.url}: ${note}`) } : {},
      result: notes.length > 0 ? { notes: notes.slice(0, 10) } : {},
    });
    if (page.unchanged && known) {
      const links = known.links;
      const unchanged = { finalUrl: page.url, links, validators: page.validators };
      await stageUnchanged(deps, job.crawlId, job.url, unchanged);
      const handedOut = await handOut(links);
      // A seed's sitemap URLs lead the crawl before its links: staged with them, for the commit's order.
      if (handedOut.links.length > links.length)
        await stageUnchanged(deps, job.crawlId, job.url, { ...unchanged, links: handedOut.links });
      const notes = noted(handedOut.notes);
      await ctx.reportProgress({ add: { done: 1, pagesCrawled: 1, pagesUnchanged: 1 }, ...notes.progress });
      return { ...base, title: '', ...found(handedOut), unchanged: true, ...notes.result };
    }
    // One bad link is one note: over-long links and those beyond the page's bound are skipped, the page goes on.
    const bounded = boundLinks(page.links);
    const landmark = page.landmark ?? false;
    const lineKeys = await repeatableKeysInTurns({ markdown: page.markdown, landmark });
    const content = {
      finalUrl: page.url,
      title: page.title,
      markdown: page.markdown,
      landmark,
      links: bounded.links,
      lineKeys,
      ...(page.validators ? { validators: page.validators } : {}),
      fetchedAt: fetchedAt.toISOString(),
    };
    const stage = (staged: typeof content) =>
      deps.staging.stagePage({ stagingId: job.crawlId, url: job.url, chunks: [], page: staged, now: fetchedAt });
    await stage(content);
    const handedOut = await handOut(bounded.links);
    if (handedOut.links.length > bounded.links.length) await stage({ ...content, links: handedOut.links });
    const rendered = page.renderedWith === 'browser' ? { pagesRendered: 1 } : {};
    // A page with text that gave no content is crawled (its links are followed) and said so, never dropped silently.
    const notes = noted([...(page.lostContent ? [page.lostContent] : []), ...bounded.notes, ...handedOut.notes]);
    await ctx.reportProgress({ add: { done: 1, pagesCrawled: 1, ...rendered }, ...notes.progress });
    return { ...base, title: page.title, ...found(handedOut), ...notes.result };
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
