import { setImmediate as nextTurn } from 'node:timers/promises';
import type { RepetitionRule } from '../../crawl/repeated-blocks';
import { AppError } from '../../errors';
import type { JobPayload } from '../../jobs/registry';
import type { Workflow } from '../../jobs/workflow';
import type { LibrarySwap, StagingStore, UploadStore } from '../../ports';
import type { ArchiveSource } from '../../sources/archive-source';
import { commitCrawl, type CommitCrawlDeps } from '../crawl/commit-crawl';
import { CRAWL_AUTO_EMBED_LIMIT } from '../crawl/crawl-site.workflow';
import {
  commitTargetOf,
  continueIndexAndBackUp,
  discardReplacement,
  indexAndBackUp,
} from '../ingest/index-and-back-up';
import { sourceIngestionResult, sourceIngestionState, type SourceIngestionState } from '../ingest/source-ingestion';
import { ARCHIVE_PLACEHOLDER_BASE_URL, publicArchiveUrls } from './archive-urls';
import { stageArchive } from './read-archive-site';

/** An uploaded site is read like a crawled one, so it embeds under the same limit. */
export const ARCHIVE_AUTO_EMBED_LIMIT = CRAWL_AUTO_EMBED_LIMIT;

type ArchiveJob = JobPayload<'ingest-archive'>;

export interface IngestArchiveDeps extends CommitCrawlDeps {
  staging: CommitCrawlDeps['staging'] & Pick<StagingStore, 'stagePage' | 'discardStaging'>;
  uploads: UploadStore;
  archives: ArchiveSource;
  swap: LibrarySwap;
  /** CRAWL_MAX_PAGES: the most pages and files one archive gives. */
  maxPages: number;
  /** Which lines are dropped as repeated chrome, as in a crawl. */
  repetition?: RepetitionRule;
  now?: () => Date;
}

/**
 * Worker side of POST /api/ingest-archive: opens the upload, stages its site's pages and its documentation files as a
 * crawl stages pages, and commits them with the crawl's commit (so an uploaded build gives the chunks a crawl of the
 * same site gives), replacing the library whole or not at all. The upload is removed when the job ends, whatever
 * its end.
 */
export function ingestArchiveWorkflow(deps: IngestArchiveDeps): Workflow<'ingest-archive', SourceIngestionState> {
  const now = deps.now ?? (() => new Date());
  const ingestionOf = (job: ArchiveJob) => ({ libraryId: job.libraryId, ingestionId: job.ingestionId });
  return {
    state: sourceIngestionState,
    async step(job, committed, children, ctx) {
      if (committed) {
        const next = await continueIndexAndBackUp(deps, ingestionOf(job), committed.finishing, children);
        if ('wait' in next) return { state: { ...committed, finishing: next.finishing }, wait: next.wait };
        await finish(deps, job);
        return { done: sourceIngestionResult(job.libraryId, committed, next.vectorized) };
      }
      await ctx.reportProgress({ phase: 'fetching', set: { done: 0, total: 1 } });
      const upload = await deps.uploads.read(job.ingestionId);
      if (!upload) {
        throw new AppError('UPLOAD_GONE', 'The uploaded archive is no longer stored; upload it again', 400, {
          retryable: false,
        });
      }
      const rootUrl = job.baseUrl ?? ARCHIVE_PLACEHOLDER_BASE_URL;
      const contents = await deps.archives.open(upload, { baseUrl: rootUrl, signal: ctx.signal });
      await nextTurn();
      const publicUrls = publicArchiveUrls(job.baseUrl);
      const stagingId = job.ingestionId;
      const pages = await stageArchive(
        { staging: deps.staging, now },
        { stagingId, contents, rootUrl, maxPages: deps.maxPages, publicUrls },
        ctx,
      );
      const seed = contents.site?.seeds[0] ?? rootUrl;
      const crawl = {
        crawlId: stagingId,
        libraryId: job.libraryId,
        ownerId: job.ownerId,
        name: job.name,
        description: job.description,
        replace: true,
        urls: [publicUrls(seed)],
        sourceType: 'archive',
      };
      const target = (replace: boolean) => commitTargetOf({ ...ingestionOf(job), replace });
      const commit = await commitCrawl(deps, crawl, pages, ctx, target).catch((error: unknown) => {
        if (error instanceof AppError && error.code === 'NO_CONTENT') throw noContent(pages.errors);
        throw error;
      });
      const generate = job.embedAll || (await deps.libraries.countChunks(commit.target)) <= ARCHIVE_AUTO_EMBED_LIMIT;
      const { finishing, wait } = await indexAndBackUp(ctx, {
        ...ingestionOf(job),
        replace: commit.replace,
        chunks: commit.chunksIngested,
        generate,
      });
      const filesIngested = pages.crawled.length;
      return { state: { filesIngested, chunksIngested: commit.chunksIngested, errors: pages.errors, finishing }, wait };
    },
    discard: async (job) => {
      await discardReplacement(deps, { ingestionId: job.ingestionId, replace: true });
      await finish(deps, job);
    },
  };
}

/** The upload and the staged pages go once the job has ended. */
async function finish(deps: IngestArchiveDeps, job: ArchiveJob): Promise<void> {
  await deps.staging.discardStaging(job.ingestionId);
  await deps.uploads.remove(job.ingestionId);
}

function noContent(errors: string[]): AppError {
  return new AppError(
    'NO_CONTENT',
    'No content found in the archive: no HTML page with content and no Markdown, MDX or reStructuredText file',
    400,
    { retryable: false, details: errors.length > 0 ? errors : undefined },
  );
}
