import { randomUUID } from 'node:crypto';
import type { IngestRequest, IngestResponse } from '../../api/schemas';
import type { StagingStore } from '../../ports';
import { isQueueUnavailable, submitJob, type JobMode, type SubmitDeps, type Submitted } from '../jobs/submit-job';
import { stageChunks } from './staged-chunks';

/** SPEC: embeddings are generated on ingest only when the payload has this many chunks or fewer. */
export const INGEST_AUTO_EMBED_LIMIT = 50;

export interface IngestDeps extends SubmitDeps {
  staging: Pick<StagingStore, 'stagePage' | 'discardStaging'>;
}

/**
 * API side of POST /api/ingest: stages the chunks and starts one `ingest-library` job, in which the worker commits
 * them, then indexes and backs them up. Nothing of the library changes until the worker commits.
 */
export async function ingestLibrary(
  deps: IngestDeps,
  request: IngestRequest,
  ownerId: string,
  mode: JobMode,
): Promise<Submitted<IngestResponse>> {
  const ingestionId = randomUUID();
  const { libraryId, chunks, replace, skipEmbeddings, embedAll, callbackUrl, ...fields } = request;
  const stage = () => stageChunks(deps.staging, ingestionId, chunks, (deps.now ?? (() => new Date()))());
  try {
    return await submitJob(
      deps,
      {
        id: ingestionId,
        name: 'ingest-library',
        libraryId,
        callbackUrl,
        payload: {
          ingestionId,
          libraryId,
          ...fields,
          replace,
          skipEmbeddings,
          embedAll,
          ownerId,
          chunkCount: chunks.length,
        },
      },
      mode,
      stage,
    );
  } catch (error) {
    if (isQueueUnavailable(error)) await deps.staging.discardStaging(ingestionId);
    throw error;
  }
}
