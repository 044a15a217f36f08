import type { JobPayload, JobResult } from '../jobs/registry';
import type { JobContext } from '../jobs/workflow';
import type { Embedder, RecordStore, VectorIndex } from '../ports';
import { embedChunks } from './embed-chunks';

/** Worker side of an ingestion: no vector may survive for a chunk that was replaced or changed. */
export async function indexIngestion(
  deps: { records: RecordStore; vectors: VectorIndex; embedder: Embedder },
  job: JobPayload<'index-ingestion'>,
  ctx?: JobContext,
): Promise<JobResult<'index-ingestion'>> {
  const chunks = await deps.records.listChunksOfIngestion(job.libraryId, job.ingestionId);
  if (job.replace) {
    await deps.vectors.deleteLibrary(job.libraryId);
    // No vector is left, so the library may be embedded with whatever model this service uses now, and an embedder
    // that learned from its old text learns again from the new.
    await deps.records.setEmbeddingModel(job.libraryId, null);
    await deps.embedder.forget?.(job.libraryId);
  } else if (!job.generate) {
    await deps.vectors.deleteChunks(job.libraryId, chunks.map((c) => c.id));
  }
  if (!job.generate) return { vectorized: false, embedded: 0 };
  const embedded = await embedChunks(deps, job.libraryId, chunks, ctx);
  return { vectorized: true, embedded };
}
