import type { CallbackSender } from '../../jobs/callback-sender';
import { errorBodyOf, statusUrlOf } from '../../jobs/job-record';
import type { JobWatcher } from '../../jobs/job-signals';
import { IDEMPOTENCY_WINDOW_MS, type JobStore } from '../../jobs/job-store';
import { jobTypeOf, type JobPayload, type JobResult, type JobRunner, type RootJobName } from '../../jobs/registry';
import { AppError } from '../../errors';
import { answerAgain } from './answer-again';
import type { JobMode, Submitted } from './job-mode';

export type { Idempotency, JobMode, Submitted } from './job-mode';

export interface SubmitDeps {
  jobStore: JobStore;
  jobs: JobRunner;
  /** Jobs that ended longer ago than this are removed when a new one is created. */
  jobRetentionMs: number;
  /** Checks callback URLs; with no WEBHOOK_SECRET callbacks cannot be signed, so none is accepted. */
  callbacks: { sender: CallbackSender; webhookSecret?: string };
  /** Follows a job a repeated request waits for. */
  watcher?: JobWatcher;
  now?: () => Date;
}

export interface JobSubmission<N extends RootJobName> {
  id: string;
  name: N;
  libraryId: string;
  payload: JobPayload<N>;
  callbackUrl?: string;
}

/** Ended jobs are pruned at most this often per process: a delete per request would be wasted work. */
const PRUNE_INTERVAL_MS = 60_000;
const lastPruned = new WeakMap<JobStore, number>();

export const isQueueUnavailable = (error: unknown) => error instanceof AppError && error.code === 'QUEUE_UNAVAILABLE';

/**
 * Records the job, then enqueues it: the one durable job behind one request. `prepare` (staging the payload) runs
 * once the request is known to be acceptable and before anything is recorded.
 */
export async function submitJob<N extends RootJobName>(
  deps: SubmitDeps,
  job: JobSubmission<N>,
  mode: JobMode,
  prepare?: () => Promise<void>,
): Promise<Submitted<JobResult<N>>> {
  const now = (deps.now ?? (() => new Date()))();
  const { idempotency } = mode;
  if (idempotency) {
    const earlier = await deps.jobStore.findJobByIdempotencyKey(
      idempotency.key,
      new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS),
    );
    if (earlier) return answerAgain(deps, earlier, idempotency, mode);
  }
  if (job.callbackUrl) await checkCallbackUrl(deps.callbacks, job.callbackUrl);
  await prepare?.();
  if (now.getTime() - (lastPruned.get(deps.jobStore) ?? -Infinity) >= PRUNE_INTERVAL_MS) {
    lastPruned.set(deps.jobStore, now.getTime());
    await deps.jobStore.pruneJobs(new Date(now.getTime() - deps.jobRetentionMs));
  }
  const created = await deps.jobStore.createJob({
    id: job.id,
    type: jobTypeOf(job.name)!,
    libraryId: job.libraryId,
    callbackUrl: job.callbackUrl,
    startedBy: mode.startedBy,
    createdAt: now,
    idempotency,
  });
  // A repeat sent at the same moment recorded its job first: that job answers this request too.
  if (created.id !== job.id) return answerAgain(deps, created, idempotency!, mode);
  try {
    if (mode.async) {
      await deps.jobs.enqueue(job.name, job.payload, { jobId: job.id });
      return { accepted: { jobId: job.id, state: 'queued', statusUrl: statusUrlOf(job.id) } };
    }
    return { result: await deps.jobs.run(job.name, job.payload, { jobId: job.id, timeoutMs: mode.timeoutMs }) };
  } catch (error) {
    // The job never reached the queue: its record says so instead of staying queued forever.
    if (isQueueUnavailable(error)) {
      await deps.jobStore.finishJob(
        job.id,
        { state: 'failed', error: errorBodyOf(error as AppError), status: (error as AppError).status },
        now,
      );
    }
    throw error;
  }
}

/** A callback needs WEBHOOK_SECRET to be signed, and its URL must pass the same SSRF address policy as crawls. */
export async function checkCallbackUrl(callbacks: SubmitDeps['callbacks'], url: string): Promise<void> {
  if (!callbacks.webhookSecret) {
    throw new AppError(
      'CALLBACKS_DISABLED',
      'callbackUrl needs WEBHOOK_SECRET to be set on the server, to sign callbacks',
      400,
      {
        retryable: false,
        details: [{ path: 'callbackUrl', message: 'callbacks are not enabled on this server' }],
      },
    );
  }
  await callbacks.sender.assertAllowed(url);
}
