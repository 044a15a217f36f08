import { AppError, restoredAppError } from '../../errors';
import { statusUrlOf } from '../../jobs/job-record';
import type { JobWatcher } from '../../jobs/job-signals';
import type { JobStore, StoredJob } from '../../jobs/job-store';
import { jobCancelled } from '../../jobs/workflow';
import { followJob } from './follow-job';
import type { Idempotency, JobMode, Submitted } from './job-mode';

export const idempotencyKeyReused = () =>
  new AppError(
    'IDEMPOTENCY_KEY_REUSED',
    'This Idempotency-Key was used for a different request in the last 24 hours; send a new key for a new request',
    422,
    { retryable: false },
  );

/**
 * Answers a repeated request (same Idempotency-Key, same request) from the first request's job: at once with the
 * same 202 when it asks for that, else with the job's result or error once it ends, as the first answer was.
 */
export async function answerAgain<R>(
  deps: { jobStore: JobStore; watcher?: JobWatcher },
  earlier: StoredJob,
  idempotency: Idempotency,
  mode: JobMode,
): Promise<Submitted<R>> {
  if (earlier.requestHash !== idempotency.requestHash) throw idempotencyKeyReused();
  if (mode.async) return { accepted: { jobId: earlier.id, state: 'queued', statusUrl: statusUrlOf(earlier.id) } };
  const ended = await waitForEnd(deps, earlier, mode.timeoutMs);
  if (ended.state === 'completed') return { result: ended.result as R };
  if (ended.state === 'cancelled') throw jobCancelled(ended.id);
  const error = ended.error ?? { error: 'The job failed', code: 'JOB_FAILED' };
  throw restoredAppError(error.code, error.error, ended.errorStatus ?? 500, {
    retryable: false,
    details: error.details,
  });
}

async function waitForEnd(
  deps: { jobStore: JobStore; watcher?: JobWatcher },
  job: StoredJob,
  timeoutMs = 120_000,
): Promise<StoredJob> {
  if (!['queued', 'running'].includes(job.state)) return job;
  const watcher = deps.watcher ?? { watchJob: () => () => undefined };
  await followJob({ jobStore: deps.jobStore, watcher }, job.id, () => undefined, AbortSignal.timeout(timeoutMs));
  const ended = (await deps.jobStore.getJob(job.id)) ?? job;
  if (ended.state === 'queued' || ended.state === 'running') {
    throw new AppError('JOB_TIMEOUT', 'The job did not finish in time; it is still queued or running', 504, {
      jobId: job.id,
    });
  }
  return ended;
}
