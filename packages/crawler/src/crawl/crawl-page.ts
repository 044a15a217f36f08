import { AppError, type JobPayload, type JobResult, type RecordStore } from '@docshelf/core';
import { chunkLoadedPage } from './page-chunks';
import { loadPage, type PageLoaderDeps } from './page-loader';

/** Worker side of one crawl page: load, extract, chunk, stage. Only counts and links go back through Redis. */
export async function crawlPage(
  deps: { records: RecordStore; loader: PageLoaderDeps; now?: () => Date },
  job: JobPayload<'crawl-page'>,
): Promise<JobResult<'crawl-page'>> {
  const page = await loadPage(deps.loader, job.url, job.renderer);
  if (page.status >= 400) {
    throw new AppError('PAGE_HTTP_ERROR', `HTTP ${page.status}`, 400, { retryable: false });
  }
  const { title, chunks, links } = chunkLoadedPage(page);
  const now = (deps.now ?? (() => new Date()))();
  await deps.records.stagePage({ stagingId: job.crawlId, url: job.url, chunks, now });
  return {
    url: job.url,
    finalUrl: page.url,
    title,
    chunks: chunks.length,
    links: job.discover ? links : [],
    renderedWith: page.renderedWith,
  };
}
