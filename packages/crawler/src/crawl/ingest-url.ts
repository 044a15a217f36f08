import {
  AppError,
  chunkLlmsTxt,
  chunkMarkdown,
  parseLlmsTxt,
  type ChunkInput,
  type JobPayload,
  type JobResult,
  type RecordStore,
} from '@docshelf/core';
import { chunkLoadedPage } from './page-chunks';
import { loadPage, type LoadedPage, type PageLoaderDeps } from './page-loader';

/** Worker side of POST /api/ingest-url: plain HTTP first, the browser only for script shells; replaces the library. */
export async function ingestUrl(
  deps: { records: RecordStore; loader: PageLoaderDeps; now?: () => Date },
  job: JobPayload<'ingest-url'>,
): Promise<JobResult<'ingest-url'>> {
  const llmsTxt = job.sourceType === 'llms_txt';
  const page = await loadPage(deps.loader, job.sourceUrl, llmsTxt ? 'http' : 'auto');
  if (page.status >= 400) {
    throw new AppError('URL_UNREACHABLE', `Fetching ${job.sourceUrl} returned HTTP ${page.status}`, 400, { retryable: false });
  }
  const chunks = llmsTxt ? chunkLlmsTxtPage(page) : chunkLoadedPage(page).chunks;
  if (chunks.length === 0) {
    throw new AppError('NO_CONTENT', `No content could be extracted from ${job.sourceUrl}`, 400, { retryable: false });
  }
  await deps.records.commitIngestion({
    library: {
      id: job.libraryId,
      name: job.name,
      description: job.description,
      sourceUrl: job.sourceUrl,
      sourceType: job.sourceType,
    },
    ownerId: job.ownerId,
    chunks,
    replace: true,
    ingestionId: job.ingestionId,
    now: (deps.now ?? (() => new Date()))(),
  });
  return { chunksIngested: chunks.length };
}

/** A file without the H1 that llms.txt requires is still documentation: it is chunked as markdown. */
function chunkLlmsTxtPage(page: LoadedPage): ChunkInput[] {
  try {
    return chunkLlmsTxt(parseLlmsTxt(page.text), page.url);
  } catch {
    return chunkMarkdown(page.text, { pageUrl: page.url, pageTitle: page.url });
  }
}
