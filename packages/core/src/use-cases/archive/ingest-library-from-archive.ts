import type { IngestArchiveFields, IngestArchiveResponse } from '../../api/archive-schemas';
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
