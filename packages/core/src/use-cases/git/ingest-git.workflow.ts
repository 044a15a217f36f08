import { AppError } from '../../errors';
import type { Workflow } from '../../jobs/workflow';
import type { LibrarySourceStore, LibraryStore, LibrarySwap } from '../../ports';
import type { GitSource } from '../../sources/git-source';
import { commitReplacement, continueIndexAndBackUp, discardReplacement } from '../ingest/index-and-back-up';
import { sourceIngestionResult, sourceIngestionState, type SourceIngestionState } from '../ingest/source-ingestion';
import { CRAWL_AUTO_EMBED_LIMIT } from '../crawl/crawl-site.workflow';
import { chunkGitFiles } from './git-chunks';

/** A repository is read like a crawled site, so it embeds under the same limit. */
export const GIT_AUTO_EMBED_LIMIT = CRAWL_AUTO_EMBED_LIMIT;

/**
 * Worker side of POST /api/ingest-git: reads the repository's documentation files at the ref, chunks each by
 * section and replaces the library with them, whole or not at all (index-and-back-up.ts).
 */
export function ingestGitWorkflow(deps: {
  libraries: Pick<LibraryStore, 'commitIngestion' | 'countChunks'>;
  git: GitSource;
  swap: LibrarySwap;
  /** Where the library's source records the commit it now holds, which a refresh compares the ref with. */
  sources: Pick<LibrarySourceStore, 'setCommit'>;
  now?: () => Date;
}): Workflow<'ingest-git', SourceIngestionState> {
  const now = deps.now ?? (() => new Date());
  return {
    state: sourceIngestionState,
    async step(job, committed, children, ctx) {
      if (committed) {
        const next = await continueIndexAndBackUp(deps, job, committed.finishing, children);
        if ('wait' in next) return { state: { ...committed, finishing: next.finishing }, wait: next.wait };
        if (committed.commit) await deps.sources.setCommit(job.libraryId, committed.commit);
        const result = sourceIngestionResult(job.libraryId, committed, next.vectorized);
        return { done: { ...result, ...(committed.commit ? { commit: committed.commit } : {}) } };
      }
      await ctx.reportProgress({ phase: 'fetching', set: { done: 0, total: 1 } });
      const fetchedAt = now();
      const { repoUrl, ref, paths, unlessCommit } = job;
      const read = await deps.git.read({ repoUrl, ref, paths, unlessCommit, signal: ctx.signal });
      if (read.unchanged) {
        // A refresh that finds the ref where the library's commit is: the library stands as it is.
        const chunksIngested = await deps.libraries.countChunks(job.libraryId);
        const done = { success: true, libraryId: job.libraryId, filesIngested: 0, chunksIngested, vectorized: false };
        return { done: { ...done, commit: read.commit, unchanged: true } };
      }
      const errors = read.skipped.map((file) => `${file.path}: ${file.reason}`);
      const { chunks, filesIngested } = await chunkGitFiles(read.files, {
        pageUrlTemplate: job.pageUrlTemplate,
        fetchedAt,
      });
      if (chunks.length === 0) {
        const where = ref ? `${repoUrl} at ${ref}` : repoUrl;
        throw new AppError('NO_CONTENT', `No Markdown, MDX or reStructuredText content found in ${where}`, 400, {
          retryable: false,
          details: errors.length > 0 ? errors : undefined,
        });
      }
      const { finishing, wait } = await commitReplacement(deps, ctx, {
        job,
        library: { name: job.name, description: job.description, sourceUrl: repoUrl, sourceType: 'git' },
        chunks,
        autoEmbedLimit: GIT_AUTO_EMBED_LIMIT,
        now: now(),
      });
      const state = { filesIngested, chunksIngested: chunks.length, errors, finishing, commit: read.commit };
      return { state, wait };
    },
    discard: (job) => discardReplacement(deps, { ingestionId: job.ingestionId, replace: true }),
  };
}
