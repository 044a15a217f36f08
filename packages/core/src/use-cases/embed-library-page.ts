import type { EmbedRequest, EmbedResponse } from '../api/schemas';
import { libraryNotFound } from '../errors';
import type { JobPayload, JobResult, JobRunner } from '../jobs/registry';
import type { Embedder, RecordStore, VectorIndex } from '../ports';
import { embedChunks } from './embed-chunks';

/** API side of POST /api/embed. */
export async function requestEmbedding(
  deps: { records: RecordStore; jobs: JobRunner },
  request: EmbedRequest,
): Promise<EmbedResponse> {
  if (!(await deps.records.getLibrary(request.libraryId))) throw libraryNotFound(request.libraryId);
  const result = await deps.jobs.run('embed-range', request);
  return { libraryId: request.libraryId, ...result };
}

/** Worker side: embeds chunks [offset, offset + limit) in library order. */
export async function embedLibraryPage(
  deps: { records: RecordStore; vectors: VectorIndex; embedder: Embedder },
  job: JobPayload<'embed-range'>,
): Promise<JobResult<'embed-range'>> {
  if (!(await deps.records.getLibrary(job.libraryId))) throw libraryNotFound(job.libraryId);
  const total = await deps.records.countChunks(job.libraryId);
  const chunks = await deps.records.listChunks(job.libraryId, { offset: job.offset, limit: job.limit });
  const processed = await embedChunks(deps, job.libraryId, chunks);
  const reached = job.offset + processed;
  const nextOffset = reached < total ? reached : null;
  return { processed, total, offset: job.offset, nextOffset, done: nextOffset === null };
}
