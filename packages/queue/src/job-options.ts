import type { JobsOptions } from 'bullmq';

/** Finished jobs are kept by count and age (never removeOnComplete: true, which races waitUntilFinished). */
export const DEFAULT_JOB_OPTIONS: JobsOptions = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 1_000 },
  removeOnComplete: { age: 3_600, count: 1_000 },
  removeOnFail: { age: 7 * 24 * 3_600, count: 5_000 },
};
