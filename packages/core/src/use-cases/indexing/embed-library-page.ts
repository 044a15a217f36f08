import { randomUUID } from 'node:crypto';
import type { EmbedRequest, EmbedResponse } from '../../api/schemas';
import { libraryNotFound } from '../../errors';
import type { JobPayload, JobResult } from '../../jobs/registry';
import type { JobContext } from '../../jobs/workflow';
import type { Embedder, LibraryStore, VectorIndex } from '../../ports';
import { embedChunks } from './embed-chunks';
import { embedRemainingChunks } from './embed-remaining-chunks';
import { submitJob, type JobMode, type SubmitDeps, type Submitted } from '../jobs/submit-job';

/** API side of POST /api/embed. */
export async function requestEmbedding(
  deps: SubmitDeps & { libraries: LibraryStore },
  request: EmbedRequest,
  mode: JobMode,
): Promise<Submitted<EmbedResponse>> {
  if (!(await deps.libraries.getLibrary(request.libraryId))) throw libraryNotFound(request.libraryId);
  const { libraryId, offset, limit, all, callbackUrl } = request;
  const payload = { libraryId, offset, limit, ...(all ? { all } : {}) };
  return submitJob(deps, { id: randomUUID(), name: 'embed-range', libraryId, callbackUrl, payload }, mode);
}

/** Worker side: embeds chunks [offset, offset + limit) in library order, or with `all` those without a vector. */
export async function embedLibraryPage(
  deps: { libraries: LibraryStore; vectors: VectorIndex; embedder: Embedder },
  job: JobPayload<'embed-range'>,
  ctx: JobContext,
): Promise<JobResult<'embed-range'>> {
  if (!(await deps.libraries.getLibrary(job.libraryId))) throw libraryNotFound(job.libraryId);
  if (job.all) return embedRemainingChunks(deps, job.libraryId, ctx);
  const total = await deps.libraries.countChunks(job.libraryId);
  const chunks = await deps.libraries.listChunks(job.libraryId, { offset: job.offset, limit: job.limit });
  // `exact`: a retried attempt embeds the range again, so it counts from 0 rather than on top of the last attempt.
  await ctx.reportProgress({ phase: 'embedding', exact: { done: 0, total: chunks.length } });
  const processed = await embedChunks(deps, job.libraryId, chunks, ctx);
  const reached = job.offset + processed;
  const nextOffset = reached < total ? reached : null;
  return { libraryId: job.libraryId, processed, total, offset: job.offset, nextOffset, done: nextOffset === null };
}
