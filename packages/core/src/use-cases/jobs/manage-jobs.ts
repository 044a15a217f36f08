import { AppError, conflict } from '../../errors';
import type { JobListQuery, JobRecord } from '../../jobs/job-record';
import type { JobNotifier, WorkflowHalter } from '../../jobs/job-signals';
import { toJobRecord, type JobStore } from '../../jobs/job-store';

export const jobNotFound = (jobId: string) =>
  new AppError('JOB_NOT_FOUND', `Job '${jobId}' not found`, 404, { retryable: false });

/** How long a cancel waits for the workflow's running jobs to stop before it answers. */
const HALT_TIMEOUT_MS = 10_000;

/**
 * Whose jobs a caller sees: `startedBy` set (an API key's `key:<id>`) limits it to the jobs it started; unset (a
 * session) means every job. Another's job is not found, as an unknown one is.
 */
export interface JobViewer {
  startedBy?: string;
}

export async function readJob(deps: { jobStore: JobStore }, jobId: string, viewer: JobViewer = {}): Promise<JobRecord> {
  const job = await deps.jobStore.getJob(jobId);
  if (!job || (viewer.startedBy !== undefined && job.startedBy !== viewer.startedBy)) throw jobNotFound(jobId);
  return toJobRecord(job);
}

export async function listJobs(
  deps: { jobStore: JobStore },
  query: JobListQuery,
  viewer: JobViewer = {},
): Promise<{ jobs: JobRecord[] }> {
  return { jobs: (await deps.jobStore.listJobs({ ...query, startedBy: viewer.startedBy })).map(toJobRecord) };
}

/**
 * Cancels a queued or running job that has not begun writing the library. The answer waits until none of the
 * workflow's jobs runs any more, so a cancelled crawl fetches no page after it; nothing it fetched is committed.
 */
export async function cancelJob(
  deps: { jobStore: JobStore; halter: WorkflowHalter; notifier: JobNotifier; now?: () => Date },
  jobId: string,
  viewer: JobViewer = {},
): Promise<JobRecord> {
  await readJob(deps, jobId, viewer);
  const outcome = await deps.jobStore.cancelJob(jobId, (deps.now ?? (() => new Date()))());
  if (outcome === 'unknown') throw jobNotFound(jobId);
  if (outcome === 'finished') throw conflict('JOB_NOT_CANCELLABLE', `Job ${jobId} has already ended`);
  if (outcome === 'committing')
    throw conflict('JOB_NOT_CANCELLABLE', `Job ${jobId} is already writing its results and will finish`);
  await deps.halter.haltWorkflow(jobId, HALT_TIMEOUT_MS);
  await deps.notifier.jobChanged(jobId);
  return readJob(deps, jobId);
}
