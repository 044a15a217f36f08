import { libraryNotFound } from '../../errors';
import type { JobPayload, JobResult, JobRunner } from '../../jobs/registry';
import type { BackupStorage, LibraryStore, VectorIndex } from '../../ports';

/** API side of DELETE /api/libraries/:id. */
export async function requestLibraryDeletion(deps: { libraries: LibraryStore; jobs: JobRunner }, libraryId: string) {
  if (!(await deps.libraries.getLibrary(libraryId))) throw libraryNotFound(libraryId);
  await deps.jobs.run('delete-library', { libraryId });
  return { success: true as const };
}

/** Worker side: the library's records go last, so a failed attempt leaves the library visible and the retry finds everything. */
export async function purgeLibrary(
  deps: { libraries: LibraryStore; vectors: VectorIndex; backups: BackupStorage },
  job: JobPayload<'delete-library'>,
): Promise<JobResult<'delete-library'>> {
  await deps.vectors.deleteLibrary(job.libraryId);
  const backupsDeleted = await deps.backups.deleteAll(job.libraryId);
  const existed = await deps.libraries.deleteLibrary(job.libraryId);
  return { existed, backupsDeleted };
}
