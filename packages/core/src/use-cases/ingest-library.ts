import { randomUUID } from 'node:crypto';
import type { IngestRequest, IngestResponse } from '../api/schemas';
import type { JobRunner } from '../jobs/registry';
import type { RecordStore } from '../ports';

/** SPEC: embeddings are generated on ingest only when the payload has this many chunks or fewer. */
export const INGEST_AUTO_EMBED_LIMIT = 50;

export interface IngestDeps {
  records: RecordStore;
  jobs: JobRunner;
  now?: () => Date;
}

/**
 * Writes the library and its chunks in one transaction, then has workers bring the vector index in line
 * and write the backup. The response is sent only when all three are done.
 */
export async function ingestLibrary(deps: IngestDeps, request: IngestRequest, ownerId: string): Promise<IngestResponse> {
  const ingestionId = randomUUID();
  const { libraryId, chunks, replace, skipEmbeddings, ...fields } = request;
  await deps.records.commitIngestion({
    library: { id: libraryId, ...fields },
    ownerId,
    chunks,
    replace,
    ingestionId,
    now: (deps.now ?? (() => new Date()))(),
  });
  const generate = !skipEmbeddings && chunks.length <= INGEST_AUTO_EMBED_LIMIT;
  const { vectorized } = await deps.jobs.run('index-ingestion', { libraryId, ingestionId, replace, generate });
  await deps.jobs.run('write-backup', { libraryId, ingestionId });
  return { success: true, libraryId, chunksIngested: chunks.length, vectorized };
}
