import type { ErrorBody, JobProgress, JobRecord, JobState, JobType, ProgressChange } from './job-record';

/** A job as stored: what clients see plus where its outcome is to be posted. */
export interface StoredJob extends JobRecord {
  callbackUrl?: string;
}

export interface NewJob {
  id: string;
  type: JobType;
  libraryId: string;
  callbackUrl?: string;
  createdAt: Date;
}

export type JobOutcome = { state: 'completed'; result: unknown } | { state: 'failed'; error: ErrorBody };

export type CancelOutcome = 'cancelled' | 'finished' | 'committing' | 'unknown';

/**
 * Records of the jobs clients follow, kept beside the library records so they outlive Redis's trimming of finished
 * jobs. State moves queued → running → completed | failed, or to cancelled from queued or running until the job
 * begins writing the library; a job that has ended never changes again.
 */
export interface JobStore {
  createJob(job: NewJob): Promise<StoredJob>;
  getJob(id: string): Promise<StoredJob | null>;
  /** Newest first. */
  listJobs(filter: { libraryId?: string; state?: JobState; limit: number }): Promise<StoredJob[]>;
  /** Moves a queued job to running (startedAt is stamped once) and returns it as it is now, in any state; null when unknown. */
  startJob(id: string, at: Date): Promise<StoredJob | null>;
  /** Applies a progress change to a running job and returns the progress after it; null when the job is not running. */
  recordProgress(id: string, change: ProgressChange): Promise<JobProgress | null>;
  /**
   * The point of no return before a job writes the library: true when the job is running, and from then on it can no
   * longer be cancelled; false when it was cancelled (or is unknown). Claiming again is allowed, for a retried attempt.
   */
  claimCommit(id: string): Promise<boolean>;
  /** Ends a queued or running job; false when it had already ended (a cancel came first). */
  finishJob(id: string, outcome: JobOutcome, at: Date): Promise<boolean>;
  cancelJob(id: string, at: Date): Promise<CancelOutcome>;
  /** Removes jobs that ended before `before`; returns how many. */
  pruneJobs(before: Date): Promise<number>;
}

/** What clients see of a stored job. */
export function toJobRecord({ callbackUrl: _callbackUrl, ...job }: StoredJob): JobRecord {
  return job;
}
