import { AppError } from '../../errors';
import type { FinalWrite, JobOutcome, JobStore, StoredJob } from '../../jobs/job-store';
import type { JobNotifier } from '../../jobs/job-signals';
import type { JobRunner } from '../../jobs/registry';

/** Worker side of a root job's record: running when an attempt starts, its outcome at the end, then the callback. */
export interface LifecycleDeps {
  jobStore: JobStore;
  notifier: JobNotifier;
  jobs: Pick<JobRunner, 'enqueue'>;
  now?: () => Date;
}

const clock = (deps: { now?: () => Date }) => (deps.now ?? (() => new Date()))();

/**
 * The job as stored when an attempt of its root starts: it may have been cancelled, or have ended in an earlier
 * attempt. The attempt marks it running with its first write (see JobStore).
 */
export async function openRootJob(deps: Pick<LifecycleDeps, 'jobStore'>, jobId: string): Promise<StoredJob> {
  const job = await deps.jobStore.getJob(jobId);
  if (!job) throw new AppError('JOB_RECORD_MISSING', `No record of job ${jobId}`, 500, { retryable: false });
  return job;
}

/**
 * Records how the job ended, unless a cancel came first, and sends the callback. Followers hear of the end from the
 * root job's own completion or failure in the queue, which comes after this write.
 */
export async function endRootJob(
  deps: LifecycleDeps,
  job: StoredJob,
  outcome: JobOutcome,
  last?: FinalWrite,
): Promise<void> {
  await deps.jobStore.finishJob(job.id, outcome, clock(deps), last);
  await announceEnd(deps, job);
}

/** For a job whose record already says how it ended (a cancel, or an earlier attempt that crashed after recording). */
export async function announceEnd(deps: LifecycleDeps, job: Pick<StoredJob, 'id' | 'callbackUrl'>): Promise<void> {
  // One delivery job per workflow: its id makes a repeated announcement a no-op.
  if (job.callbackUrl) await deps.jobs.enqueue('deliver-callback', { jobId: job.id }, { jobId: `${job.id}.callback` });
}
