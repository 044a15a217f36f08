import { randomUUID } from 'node:crypto';
import type { CrawlRequest, CrawlResponse, IngestUrlRequest } from '../../api/crawl-schemas';
import type { IngestResponse } from '../../api/schemas';
import { submitJob, type JobMode, type SubmitDeps, type Submitted } from '../jobs/submit-job';

export { CRAWL_AUTO_EMBED_LIMIT } from './crawl-site.workflow';
export { URL_AUTO_EMBED_LIMIT } from './ingest-url.workflow';

/** API side of POST /api/crawl: one `crawl-site` job crawls, commits, indexes and backs up in the worker. */
export function crawlLibrary(
  deps: SubmitDeps,
  request: CrawlRequest,
  ownerId: string,
  mode: JobMode,
): Promise<Submitted<CrawlResponse>> {
  const crawlId = randomUUID();
  const { libraryId, name, description, urls, replace, callbackUrl, refreshEvery: _schedule, ...options } = request;
  return submitJob(
    deps,
    {
      id: crawlId,
      name: 'crawl-site',
      libraryId,
      callbackUrl,
      payload: { crawlId, libraryId, name, description, urls, replace, ownerId, options },
    },
    mode,
  );
}

/** API side of POST /api/ingest-url: the library's chunks are replaced by the URL's, all in one `ingest-url` job. */
export function ingestLibraryFromUrl(
  deps: SubmitDeps,
  request: IngestUrlRequest,
  ownerId: string,
  mode: JobMode,
): Promise<Submitted<IngestResponse>> {
  const ingestionId = randomUUID();
  const { callbackUrl, ...fields } = request;
  return submitJob(
    deps,
    {
      id: ingestionId,
      name: 'ingest-url',
      libraryId: request.libraryId,
      callbackUrl,
      payload: { ingestionId, ownerId, ...fields },
    },
    mode,
  );
}
