import { randomUUID } from 'node:crypto';
import type { IngestGitRequest, IngestGitResponse } from '../../api/git-schemas';
import { submitJob, type JobMode, type SubmitDeps, type Submitted } from '../jobs/submit-job';

/**
 * API side of POST /api/ingest-git (and of a git library's refresh, with the commit it holds as `unlessCommit`): the
 * library's chunks are replaced by the repository's, in one `ingest-git` job. */
export function ingestLibraryFromGit(
  deps: SubmitDeps,
  request: IngestGitRequest & { unlessCommit?: string },
  ownerId: string,
  mode: JobMode,
): Promise<Submitted<IngestGitResponse>> {
  const ingestionId = randomUUID();
  const { callbackUrl, refreshEvery: _schedule, ...fields } = request;
  return submitJob(
    deps,
    {
      id: ingestionId,
      name: 'ingest-git',
      libraryId: request.libraryId,
      callbackUrl,
      payload: { ingestionId, ownerId, ...fields },
    },
    mode,
  );
}
