import type { IngestArchiveFields, IngestArchiveResponse } from '../../api/archive-schemas';
import type { JobStore } from '../../jobs/job-store';
import type { UploadStore } from '../../ports';
import { submitJob, type JobMode, type SubmitDeps, type Submitted } from '../jobs/submit-job';

/**
 * API side of POST /api/ingest-archive, once the upload is stored under `uploadId`: the library's chunks are replaced
 * by the archive's, in one `ingest-archive` job whose id is the upload's.
 */
export function ingestLibraryFromArchive(
  deps: SubmitDeps,
  request: IngestArchiveFields & { uploadId: string },
  ownerId: string,
  mode: JobMode,
): Promise<Submitted<IngestArchiveResponse>> {
  const { callbackUrl, uploadId, ...fields } = request;
  return submitJob(
    deps,
    {
      id: uploadId,
      name: 'ingest-archive',
      libraryId: request.libraryId,
      callbackUrl,
      payload: { ingestionId: uploadId, ownerId, ...fields },
    },
    mode,
  );
}

/**
 * After the request, whatever its outcome: an upload no job will read goes at once (the request was refused, answered
 * by an earlier job with the same idempotency key, or its job has ended already and removed it). A queued or running
 * job keeps it.
 */
export async function removeUnclaimedUpload(
  deps: { jobStore: Pick<JobStore, 'getJob'>; uploads: Pick<UploadStore, 'remove'> },
  uploadId: string,
): Promise<void> {
  const job = await deps.jobStore.getJob(uploadId);
  if (job && (job.state === 'queued' || job.state === 'running')) return;
  await deps.uploads.remove(uploadId);
}
