import { randomUUID } from 'node:crypto';
import type { CrawlRequest, CrawlResponse, IngestUrlRequest } from '../api/crawl-schemas';
import type { IngestResponse } from '../api/schemas';
import type { JobRunner } from '../jobs/registry';
import type { RecordStore } from '../ports';

/** SPEC: a crawled library is embedded automatically when it has this many chunks or fewer. */
export const CRAWL_AUTO_EMBED_LIMIT = 500;
/** URL ingestion fetches like a crawl, so it embeds under the same limit. */
export const URL_AUTO_EMBED_LIMIT = CRAWL_AUTO_EMBED_LIMIT;

export interface CrawlDeps {
  records: RecordStore;
  jobs: JobRunner;
  /** How long the API waits for a whole crawl. */
  crawlTimeoutMs: number;
}

/** API side of POST /api/crawl: a coordinator job crawls and commits; then vectors and the backup follow. */
export async function crawlLibrary(deps: CrawlDeps, request: CrawlRequest, ownerId: string): Promise<CrawlResponse> {
  const crawlId = randomUUID();
  const { libraryId, name, description, urls, replace, ...options } = request;
  const crawl = await deps.jobs.run(
    'crawl-site',
    { crawlId, libraryId, name, description, urls, replace, ownerId, options },
    { timeoutMs: deps.crawlTimeoutMs },
  );
  const vectorized = await indexAndBackUp(deps, libraryId, crawlId, replace, CRAWL_AUTO_EMBED_LIMIT);
  return {
    success: true,
    libraryId,
    pagesDiscovered: crawl.pagesDiscovered,
    pagesCrawled: crawl.pagesCrawled,
    chunksIngested: crawl.chunksIngested,
    vectorized,
    errors: crawl.errors,
  };
}

/** API side of POST /api/ingest-url: the library's chunks are replaced by the URL's. */
export async function ingestLibraryFromUrl(
  deps: CrawlDeps,
  request: IngestUrlRequest,
  ownerId: string,
): Promise<IngestResponse> {
  const ingestionId = randomUUID();
  const { chunksIngested } = await deps.jobs.run(
    'ingest-url',
    { ingestionId, ownerId, ...request },
    { timeoutMs: deps.crawlTimeoutMs },
  );
  const vectorized = await indexAndBackUp(deps, request.libraryId, ingestionId, true, URL_AUTO_EMBED_LIMIT);
  return { success: true, libraryId: request.libraryId, chunksIngested, vectorized };
}

async function indexAndBackUp(
  deps: CrawlDeps,
  libraryId: string,
  ingestionId: string,
  replace: boolean,
  embedLimit: number,
): Promise<boolean> {
  const generate = (await deps.records.countChunks(libraryId)) <= embedLimit;
  const { vectorized } = await deps.jobs.run('index-ingestion', { libraryId, ingestionId, replace, generate });
  await deps.jobs.run('write-backup', { libraryId, ingestionId });
  return vectorized;
}
