import { z } from 'zod';
import { stagedLibraryId, versionOfLibraryId } from '../../domain/library-id';
import type { ChildOutcome, ChildJob, JobContext } from '../../jobs/workflow';
import { childResult } from '../../jobs/workflow';
import { jobRegistry } from '../../jobs/registry';
import type { CommitIngestionInput, LibraryStore, LibrarySwap } from '../../ports';

/**
 * Where an ingestion is after its commit. An update indexes and backs up at once. A replacement was committed under
 * a staging id (stagedLibraryId): it is indexed there, then swapped into the library in one step, then backed up, so
 * readers see the old library until the new one is complete, and a replacement that fails leaves the old one as it was.
 */
export const finishingSchema = z.object({
  stage: z.enum(['indexing-and-backing-up', 'indexing-replacement', 'backing-up']),
  vectorized: z.boolean().optional(),
});
export type Finishing = z.infer<typeof finishingSchema>;

export interface Ingestion {
  libraryId: string;
  ingestionId: string;
  replace: boolean;
  /** Chunks the ingestion wrote. */
  chunks: number;
  /** Whether its chunks are embedded now (the automatic embedding limits). */
  generate: boolean;
  /** A re-crawl's replacement: chunks identical to this library's take its vectors (see index-ingestion.ts). */
  reuseVectorsOf?: string;
  /** Chunks the ingestion removed: their vectors go too. */
  dropChunkIds?: string[];
}

/** Where an ingestion writes its chunks: the library itself, or for a replacement the staging id it is built under. */
export const commitTargetOf = (ingestion: Pick<Ingestion, 'libraryId' | 'ingestionId' | 'replace'>) =>
  ingestion.replace ? stagedLibraryId(ingestion.ingestionId) : ingestion.libraryId;

/** A source read whole (one URL, one repository) replacing its library: whole or not at all. */
export interface Replacement {
  job: { libraryId: string; ingestionId: string; ownerId: string; embedAll?: boolean };
  library: Omit<CommitIngestionInput['library'], 'id'>;
  chunks: CommitIngestionInput['chunks'];
  /** Its chunks are embedded now when the job asks for all or the library holds at most this many. */
  autoEmbedLimit: number;
  now: Date;
}

/** Commits a replacement under its staging id, then starts its indexing (indexAndBackUp). */
export async function commitReplacement(
  deps: { libraries: Pick<LibraryStore, 'commitIngestion' | 'countChunks'> },
  ctx: JobContext,
  replacement: Replacement,
): Promise<{ finishing: Finishing; wait: ChildJob[] }> {
  const { job, chunks } = replacement;
  await ctx.beginCommit();
  await ctx.reportProgress({ phase: 'committing', set: { done: 0, total: chunks.length } });
  const target = commitTargetOf({ ...job, replace: true });
  await deps.libraries.commitIngestion({
    // A version's library (`x@1.2`) is that version.
    library: { ...replacement.library, id: target, version: versionOfLibraryId(job.libraryId) },
    ownerId: job.ownerId,
    chunks,
    replace: true,
    ingestionId: job.ingestionId,
    now: replacement.now,
  });
  const generate = job.embedAll === true || (await deps.libraries.countChunks(target)) <= replacement.autoEmbedLimit;
  const { libraryId, ingestionId } = job;
  return indexAndBackUp(ctx, { libraryId, ingestionId, replace: true, chunks: chunks.length, generate });
}

/** The jobs that follow the commit. */
export async function indexAndBackUp(
  ctx: JobContext,
  ingestion: Ingestion,
): Promise<{ finishing: Finishing; wait: ChildJob[] }> {
  const { libraryId, ingestionId, replace, generate, reuseVectorsOf, dropChunkIds } = ingestion;
  await ctx.reportProgress({
    phase: 'indexing',
    set: { chunksIngested: ingestion.chunks, done: 0, total: generate ? ingestion.chunks : 0 },
  });
  const payload = {
    libraryId: commitTargetOf(ingestion),
    ingestionId,
    replace,
    generate,
    ...(reuseVectorsOf ? { reuseVectorsOf } : {}),
    ...(dropChunkIds?.length ? { dropChunkIds } : {}),
  };
  const index = { key: 'index', name: 'index-ingestion', payload } as const;
  if (replace) return { finishing: { stage: 'indexing-replacement' }, wait: [index] };
  const backup = {
    key: 'backup',
    name: 'write-backup',
    payload: { libraryId, ingestionId, ...(dropChunkIds?.length ? { removedChunkIds: dropChunkIds } : {}) },
  } as const;
  return { finishing: { stage: 'indexing-and-backing-up' }, wait: [index, backup] };
}

/**
 * The next step once the jobs of a stage answered: the outcome (whether the chunks were embedded), or the jobs of
 * the next stage. A failed index or backup fails the workflow with its error.
 */
export async function continueIndexAndBackUp(
  deps: { swap: LibrarySwap; now?: () => Date },
  ingestion: Pick<Ingestion, 'libraryId' | 'ingestionId'>,
  finishing: Finishing,
  children: ChildOutcome[],
): Promise<{ vectorized: boolean } | { finishing: Finishing; wait: ChildJob[] }> {
  if (finishing.stage === 'indexing-and-backing-up') {
    const { vectorized } = childResult(children, 'index', jobRegistry['index-ingestion'].result);
    childResult(children, 'backup', jobRegistry['write-backup'].result);
    return { vectorized };
  }
  if (finishing.stage === 'backing-up') {
    childResult(children, 'backup', jobRegistry['write-backup'].result);
    return { vectorized: finishing.vectorized ?? false };
  }
  const { vectorized } = childResult(children, 'index', jobRegistry['index-ingestion'].result);
  // False when a retried step finds it swapped in already: the library is the replacement either way.
  await deps.swap.swapIn(
    stagedLibraryId(ingestion.ingestionId),
    ingestion.libraryId,
    (deps.now ?? (() => new Date()))(),
  );
  const { libraryId, ingestionId } = ingestion;
  return {
    finishing: { stage: 'backing-up', vectorized },
    wait: [{ key: 'backup', name: 'write-backup', payload: { libraryId, ingestionId, replace: true } }],
  };
}

/** Drops a replacement that will not be swapped in (the workflow failed or was cancelled). */
export async function discardReplacement(
  deps: { swap: LibrarySwap },
  ingestion: Pick<Ingestion, 'ingestionId' | 'replace'>,
): Promise<void> {
  if (ingestion.replace) await deps.swap.discard(stagedLibraryId(ingestion.ingestionId));
}
