import { z } from 'zod';
import { stampIngestedChunks } from '../../domain/chunk-provenance';
import { versionOfLibraryId } from '../../domain/library-id';
import { AppError } from '../../errors';
import type { Workflow } from '../../jobs/workflow';
import type { LibraryStore, LibrarySwap, StagingStore } from '../../ports';
import {
  commitTargetOf,
  continueIndexAndBackUp,
  discardReplacement,
  finishingSchema,
  indexAndBackUp,
} from './index-and-back-up';
import { INGEST_AUTO_EMBED_LIMIT } from './ingest-library';
import { readStagedChunks } from './staged-chunks';

const state = z.object({ chunksIngested: z.number().int().min(0), finishing: finishingSchema });

/**
 * Worker side of POST /api/ingest: commit the staged chunks in one transaction, then index ∥ back up; a replacement
 * is committed and indexed aside and swapped in whole (index-and-back-up.ts).
 */
export function ingestLibraryWorkflow(deps: {
  libraries: Pick<LibraryStore, 'commitIngestion'>;
  staging: Pick<StagingStore, 'listStagedPages' | 'discardStaging'>;
  swap: LibrarySwap;
  now?: () => Date;
}): Workflow<'ingest-library', z.infer<typeof state>> {
  return {
    state,
    async step(job, committed, children, ctx) {
      if (committed) {
        const next = await continueIndexAndBackUp(deps, job, committed.finishing, children);
        if ('wait' in next) return { state: { ...committed, finishing: next.finishing }, wait: next.wait };
        await deps.staging.discardStaging(job.ingestionId);
        return {
          done: {
            success: true,
            libraryId: job.libraryId,
            chunksIngested: committed.chunksIngested,
            vectorized: next.vectorized,
          },
        };
      }
      const chunks = await readStagedChunks(deps.staging, job.ingestionId);
      if (chunks.length !== job.chunkCount) {
        throw new AppError(
          'STAGING_INCOMPLETE',
          `Ingestion ${job.ingestionId} staged ${chunks.length} of ${job.chunkCount} chunks`,
          500,
          { retryable: false },
        );
      }
      await ctx.beginCommit();
      await ctx.reportProgress({ phase: 'committing', set: { done: 0, total: chunks.length } });
      const { ingestionId, libraryId, replace, ownerId, name, description, sourceUrl, sourceType, version } = job;
      const now = (deps.now ?? (() => new Date()))();
      await deps.libraries.commitIngestion({
        // A version's library (`x@1.2`) is that version; the request checked that a `version` it gave agrees.
        library: {
          id: commitTargetOf(job),
          name,
          description,
          sourceUrl,
          sourceType,
          version: version ?? versionOfLibraryId(libraryId),
        },
        ownerId,
        chunks: stampIngestedChunks(chunks, now),
        replace,
        ingestionId,
        now,
      });
      const generate = !job.skipEmbeddings && (job.embedAll || chunks.length <= INGEST_AUTO_EMBED_LIMIT);
      const { finishing, wait } = await indexAndBackUp(ctx, {
        libraryId,
        ingestionId,
        replace,
        chunks: chunks.length,
        generate,
      });
      return { state: { chunksIngested: chunks.length, finishing }, wait };
    },
    discard: async (job) => {
      await discardReplacement(deps, job);
      await deps.staging.discardStaging(job.ingestionId);
    },
  };
}
