import type { JobName, QueueName } from '@docshelf/core';
import type { JobsOptions } from 'bullmq';

/** Finished jobs are kept by count and age (never removeOnComplete: true, which races waitUntilFinished). */
export const DEFAULT_JOB_OPTIONS: JobsOptions = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 1_000 },
  removeOnComplete: { age: 3_600, count: 1_000 },
  removeOnFail: { age: 7 * 24 * 3_600, count: 5_000 },
};

/** Jobs that need more than the defaults; every job's options are set here and nowhere else. */
const OPTIONS_BY_JOB: Partial<Record<JobName, JobsOptions>> = {
  // A receiver that is down for a while still gets the outcome: 2 s, 4 s, … about 17 minutes in all.
  'deliver-callback': { attempts: 10, backoff: { type: 'exponential', delay: 2_000 } },
};

export function jobOptionsFor(name: JobName, extra: JobsOptions = {}): JobsOptions {
  return { ...DEFAULT_JOB_OPTIONS, ...OPTIONS_BY_JOB[name], ...extra };
}

/** Workflow events ride on the `ingest` queue's event stream, whichever queue the job runs on. */
export const JOB_EVENTS_QUEUE: QueueName = 'ingest';
export const JOB_CHANGED_EVENT = 'job-changed';
/** BullMQ's default length of a queue's event stream; publishing must not trim it shorter. */
export const EVENT_STREAM_LENGTH = 10_000;
