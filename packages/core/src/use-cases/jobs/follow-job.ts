import { isFinalJobState, type ErrorBody, type JobProgress, type JobRecord } from '../../jobs/job-record';
import type { JobWatcher } from '../../jobs/job-signals';
import { toJobRecord, type JobStore } from '../../jobs/job-store';
import { jobNotFound } from './manage-jobs';

export type JobEvent =
  | { event: 'progress'; data: JobProgress }
  | { event: 'completed'; data: unknown }
  | { event: 'failed'; data: ErrorBody }
  | { event: 'cancelled'; data: JobRecord };

/** Re-read even without a notification, for changes whose notification was lost (Redis away, another API instance). */
const FALLBACK_POLL_MS = 2_000;

/**
 * Sends a job's progress as it changes, then exactly one final event, and resolves; a job that has already ended
 * gets its final event at once. Stops early when `signal` aborts (the client went away).
 */
export async function followJob(
  deps: { jobStore: JobStore; watcher: JobWatcher; pollMs?: number },
  jobId: string,
  send: (event: JobEvent) => void,
  signal: AbortSignal,
): Promise<void> {
  if (!(await deps.jobStore.getJob(jobId))) throw jobNotFound(jobId);
  await new Promise<void>((resolve) => {
    let lastProgress = '';
    let ended = false;
    let reading = false;
    let readAgain = false;

    const stop = () => {
      ended = true;
      unwatch();
      clearInterval(timer);
      signal.removeEventListener('abort', stop);
      resolve();
    };
    const read = async () => {
      const stored = await deps.jobStore.getJob(jobId);
      if (!stored || ended) return;
      const job = toJobRecord(stored);
      if (isFinalJobState(job.state)) {
        send(finalEvent(job));
        stop();
        return;
      }
      const progress = JSON.stringify(job.progress);
      if (progress !== lastProgress) {
        lastProgress = progress;
        send({ event: 'progress', data: job.progress });
      }
    };
    // One read at a time; a notification during a read causes one more read, so the last change is never missed.
    const schedule = () => {
      if (ended) return;
      if (reading) {
        readAgain = true;
        return;
      }
      reading = true;
      read()
        .catch(() => undefined)
        .finally(() => {
          reading = false;
          if (readAgain) {
            readAgain = false;
            schedule();
          }
        });
    };

    const unwatch = deps.watcher.watchJob(jobId, schedule);
    const timer = setInterval(schedule, deps.pollMs ?? FALLBACK_POLL_MS);
    if (signal.aborted) return stop();
    signal.addEventListener('abort', stop, { once: true });
    schedule();
  });
}

function finalEvent(job: JobRecord): JobEvent {
  if (job.state === 'completed') return { event: 'completed', data: job.result };
  if (job.state === 'failed')
    return { event: 'failed', data: job.error ?? { error: 'Job failed', code: 'JOB_FAILED' } };
  return { event: 'cancelled', data: job };
}
