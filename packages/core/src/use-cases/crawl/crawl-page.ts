import { chunkLoadedPage } from '../../crawl/page-chunks';
import type { PageLoader } from '../../crawl/page-loader';
import { AppError } from '../../errors';
import type { JobPayload, JobResult } from '../../jobs/registry';
import type { JobContext } from '../../jobs/workflow';
import type { RecordStore } from '../../ports';

/** Worker side of one crawl page: load, extract, chunk, stage. Only counts and links go back through Redis. */
export async function crawlPage(
  deps: { records: Pick<RecordStore, 'stagePage'>; loader: PageLoader; now?: () => Date },
  job: JobPayload<'crawl-page'>,
  ctx: JobContext,
): Promise<JobResult<'crawl-page'>> {
  try {
    const page = await deps.loader.load(job.url, { renderer: job.renderer, signal: ctx.signal });
    if (page.status >= 400) throw new AppError('PAGE_HTTP_ERROR', `HTTP ${page.status}`, 400, { retryable: false });
    const chunks = chunkLoadedPage(page);
    await deps.records.stagePage({ stagingId: job.crawlId, url: job.url, chunks, now: (deps.now ?? (() => new Date()))() });
    await ctx.reportProgress({ add: { done: 1, pagesCrawled: 1 } });
    return {
      url: job.url,
      finalUrl: page.url,
      title: page.title,
      chunks: chunks.length,
      links: job.discover ? page.links : [],
      renderedWith: page.renderedWith,
    };
  } catch (error) {
    // A page that fails for good counts now; the coordinator recounts exactly after the level anyway.
    if (error instanceof AppError && !error.retryable && error.code !== 'JOB_CANCELLED') {
      await ctx.reportProgress({ add: { done: 1, pagesFailed: 1 } });
    }
    throw error;
  }
}
