import type { ErrorBody, JobProgress, JobRecord, JobState, JobType, ProgressChange } from './job-record';

/**
 * A job as stored: what clients see, plus where its outcome is to be posted, the HTTP status its failure answered
 * with, and what an Idempotency-Key request must match to be answered by this job.
 */
export interface StoredJob extends JobRecord {
  callbackUrl?: string;
  /** Who started it: `key:<api key id>` or `user:<user id>` (a session); an API key sees only its own jobs. */
  startedBy?: string;
  errorStatus?: number;
  requestHash?: string;
}

export interface NewJob {
  id: string;
  type: JobType;
  libraryId: string;
  callbackUrl?: string;
  /** `key:<api key id>` or `user:<user id>`. */
  startedBy?: string;
  createdAt: Date;
  /** An Idempotency-Key (scoped to its caller) and a hash of the request it came with. */
  idempotency?: { key: string; requestHash: string };
}

export type JobOutcome =
  { state: 'completed'; result: unknown } | { state: 'failed'; error: ErrorBody; status?: number };

/** A repeated request with the same Idempotency-Key is answered by the first one's job for this long. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3600_000;

/** What a job's last write may carry besides its outcome, so a short job is recorded in one write. */
export interface FinalWrite {
  /** Progress not written yet. */
  progress?: ProgressChange;
  /** When the job began, for a job whose start was not written yet. */
  startedAt?: Date;
}

export type CancelOutcome = 'cancelled' | 'finished' | 'committing' | 'unknown';

/**
 * Records of the jobs clients follow, kept beside the library records so they outlive Redis's trimming of finished
 * jobs. State moves queued → running → completed | failed, or to cancelled from queued or running until the job
 * begins writing the library; a job that has ended never changes again. A job becomes running with its first
 * progress (or its commit claim); workers write progress in batches, so a short job may go from queued to its end.
 */
export interface JobStore {
  /**
   * Records a new job; with an idempotency key already used since `createdAt` minus IDEMPOTENCY_WINDOW_MS, records
   * nothing and returns that earlier job (its id differs from `job.id`). An older use of the key is forgotten.
   */
  createJob(job: NewJob): Promise<StoredJob>;
  /** The job recorded with this idempotency key since `since`, or null. */
  findJobByIdempotencyKey(key: string, since: Date): Promise<StoredJob | null>;
  getJob(id: string): Promise<StoredJob | null>;
  /** Newest first; with `startedBy`, only the jobs it started. */
  listJobs(filter: { libraryId?: string; state?: JobState; startedBy?: string; limit: number }): Promise<StoredJob[]>;
  /**
   * Applies a progress change to a queued or running job, which is running from then on (startedAt = `startedAt`
   * unless already set); returns the progress after it, or null when the job has ended (or is unknown).
   */
  recordProgress(id: string, change: ProgressChange, startedAt: Date): Promise<JobProgress | null>;
  /**
   * The point of no return before a job writes the library: true when the job is queued or running (it is running,
   * in phase `committing`, from then on, and can no longer be cancelled); false when it was cancelled or has ended.
   * Claiming again is allowed, for a retried attempt.
   */
  claimCommit(id: string, startedAt: Date): Promise<boolean>;
  /** Ends a queued or running job; false when it had already ended (a cancel came first). */
  finishJob(id: string, outcome: JobOutcome, at: Date, last?: FinalWrite): Promise<boolean>;
  cancelJob(id: string, at: Date): Promise<CancelOutcome>;
  /** Removes jobs that ended before `before`; returns how many. */
  pruneJobs(before: Date): Promise<number>;
}

/** What clients see of a stored job. */
export function toJobRecord({
  callbackUrl: _callbackUrl,
  startedBy: _startedBy,
  errorStatus: _status,
  requestHash: _hash,
  ...job
}: StoredJob): JobRecord {
  return job;
}
