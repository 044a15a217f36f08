import { AppError } from '../../errors';
import type { JobOutcome, JobStore, StoredJob } from '../../jobs/job-store';
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

/** Marks the job running and returns it as stored: it may have been cancelled, or have ended in an earlier attempt. */
export async function startRootJob(deps: LifecycleDeps, jobId: string): Promise<StoredJob> {
  const job = await deps.jobStore.startJob(jobId, clock(deps));
  if (!job) throw new AppError('JOB_RECORD_MISSING', `No record of job ${jobId}`, 500, { retryable: false });
  await deps.notifier.jobChanged(jobId);
  return job;
}

/** Records how the job ended, unless a cancel came first; either way followers hear of it and the callback goes out. */
export async function endRootJob(deps: LifecycleDeps, jobId: string, outcome: JobOutcome): Promise<void> {
  await deps.jobStore.finishJob(jobId, outcome, clock(deps));
  await announceEnd(deps, jobId);
}

/** For a job whose record already says how it ended (a cancel, or an earlier attempt that crashed after recording). */
export async function announceEnd(deps: LifecycleDeps, jobId: string): Promise<void> {
  await deps.notifier.jobChanged(jobId);
  const job = await deps.jobStore.getJob(jobId);
  // One delivery job per workflow: its id makes a repeated announcement a no-op.
  if (job?.callbackUrl) await deps.jobs.enqueue('deliver-callback', { jobId }, { jobId: `${jobId}.callback` });
}
