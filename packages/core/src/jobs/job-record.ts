import { z } from 'zod';
import { libraryIdSchema } from '../domain/library-id';
import { isoTimestampSchema as isoTimestamp } from '../domain/schemas';

/** The requests that run as jobs a client can follow (docs/api.md, asynchronous jobs). */
export const JOB_TYPES = ['ingest', 'crawl', 'ingest-url', 'ingest-git', 'ingest-archive', 'embed'] as const;
export const jobTypeSchema = z.enum(JOB_TYPES);
export type JobType = z.infer<typeof jobTypeSchema>;

export const JOB_STATES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;
export const jobStateSchema = z.enum(JOB_STATES);
export type JobState = z.infer<typeof jobStateSchema>;

export const isFinalJobState = (state: JobState) =>
  state === 'completed' || state === 'failed' || state === 'cancelled';

/**
 * Where a job is: crawl pages, fetch one URL, write chunks, index (vectors and backup), embed a range (`embedding`)
 * or every chunk still without a vector (`embed`).
 */
export const JOB_PHASES = [
  'queued',
  'crawling',
  'fetching',
  'committing',
  'indexing',
  'embedding',
  'embed',
  'done',
] as const;
export type JobPhase = (typeof JOB_PHASES)[number];

const count = z.number().int().min(0);

export const jobProgressSchema = z.object({
  phase: z.enum(JOB_PHASES),
  /** Units of the current phase finished: pages answered (crawling), pages written (committing), chunks embedded. */
  done: count,
  total: count,
  pagesDiscovered: count.optional(),
  pagesCrawled: count.optional(),
  pagesFailed: count.optional(),
  /** Crawled pages loaded in Chromium (with renderer "auto", the script shells only). */
  pagesRendered: count.optional().describe('Crawled pages loaded in Chromium'),
  /** Crawled pages found unchanged since the library's last crawl (HTTP 304 or the same content). */
  pagesUnchanged: count.optional().describe('Crawled pages unchanged since the library was last crawled'),
  chunksIngested: count.optional(),
  /** Per-page failures so far (`"<url>: <message>"`), the latest MAX_PROGRESS_ERRORS, as they happen. */
  errors: z.array(z.string()).optional(),
});
export type JobProgress = z.infer<typeof jobProgressSchema>;

/**
 * Progress as it is reported: `done` never above a known `total` (0 = not known yet). Work retried after a worker
 * died is counted twice live (`done 7048 / total 5000`); the store keeps the count as counted, so an `exact` count
 * given later (a coordinator's at a phase's end) replaces it, and only the report is bounded.
 */
export function boundProgress(progress: JobProgress): JobProgress {
  return progress.total > 0 && progress.done > progress.total ? { ...progress, done: progress.total } : progress;
}

/** A job's progress keeps this many of its latest per-page errors; the result lists them all. */
export const MAX_PROGRESS_ERRORS = 50;

/** Appends per-page errors to those kept, keeping the latest MAX_PROGRESS_ERRORS. */
export function appendProgressErrors(kept: readonly string[] | undefined, added: readonly string[]): string[] {
  return [...(kept ?? []), ...added].slice(-MAX_PROGRESS_ERRORS);
}

/** The counters a progress report may set or add to. */
export const PROGRESS_COUNTERS = [
  'done',
  'total',
  'pagesDiscovered',
  'pagesCrawled',
  'pagesFailed',
  'pagesRendered',
  'pagesUnchanged',
  'chunksIngested',
] as const;
export type ProgressCounter = (typeof PROGRESS_COUNTERS)[number];

/** Counters of a whole job, which only grow; `done` and `total` start again with each phase. */
export const JOB_COUNTERS = [
  'pagesDiscovered',
  'pagesCrawled',
  'pagesFailed',
  'pagesRendered',
  'pagesUnchanged',
  'chunksIngested',
] as const;

export interface ProgressChange {
  phase?: JobPhase;
  /**
   * Raises counters to these values: progress never goes back, so a count the coordinator knows at a level's end
   * cannot undo increments page jobs wrote since. `done` and `total` take the value as given when the phase changes.
   */
  set?: Partial<Record<ProgressCounter, number>>;
  /** Added atomically, so page jobs of one crawl on several workers can count together. */
  add?: Partial<Record<ProgressCounter, number>>;
  /**
   * Counters assigned as given (plus any `add`), even below their value: a coordinator's count once every page is done,
   * which a page retried after its worker died (and so counted twice live) must not leave overcounted.
   */
  exact?: Partial<Record<ProgressCounter, number>>;
  /** Per-page errors to append (`"<url>: <message>"`). */
  errors?: string[];
}

/** The error shape every endpoint answers with (and a failed job keeps). */
export const errorBodySchema = z
  .object({
    error: z.string().describe('Human-readable message'),
    code: z
      .string()
      .describe('Stable machine code, e.g. VALIDATION_FAILED, UNAUTHORIZED, LIBRARY_NOT_FOUND, QUEUE_UNAVAILABLE'),
    details: z.array(z.unknown()).optional().describe('Validation issues, each with the `path` of the field'),
    jobId: z.string().optional().describe('On 504 JOB_TIMEOUT: the job that is still queued or running'),
    errorId: z.string().optional().describe('On 500: also written to the log'),
  })
  .meta({ id: 'Error' });
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** A job as GET /api/jobs/:id shows it. */
export const jobRecordSchema = z
  .object({
    id: z.string(),
    type: jobTypeSchema,
    libraryId: z.string(),
    state: jobStateSchema,
    progress: jobProgressSchema,
    result: z.unknown().optional().describe('The body the synchronous call answers, once completed'),
    error: errorBodySchema.optional().describe('The error the synchronous call answers, once failed'),
    createdAt: isoTimestamp,
    startedAt: isoTimestamp.optional(),
    finishedAt: isoTimestamp.optional(),
  })
  .meta({ id: 'Job' });
export type JobRecord = z.infer<typeof jobRecordSchema>;

/** The 202 answer of a request sent with `Prefer: respond-async`. */
export const acceptedJobSchema = z
  .object({
    jobId: z.string(),
    state: z.literal('queued'),
    statusUrl: z.string().describe('/api/jobs/<jobId>'),
  })
  .meta({ id: 'AcceptedJob' });
export type AcceptedJob = z.infer<typeof acceptedJobSchema>;

/** Job ids are UUIDs minted by the API; anything else names no job. */
export const jobIdSchema = z.string().uuid();

export const jobListQuerySchema = z.object({
  libraryId: libraryIdSchema.optional(),
  state: jobStateSchema.optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});
export type JobListQuery = z.infer<typeof jobListQuerySchema>;

export const jobListSchema = z.object({ jobs: z.array(jobRecordSchema) }).meta({ id: 'JobList' });
export type JobList = z.infer<typeof jobListSchema>;

export const statusUrlOf = (jobId: string) => `/api/jobs/${jobId}`;

/** The error shape of an AppError, as answered over HTTP and stored with a failed job. */
export function errorBodyOf(error: { message: string; code: string; details?: unknown[] }): ErrorBody {
  return { error: error.message, code: error.code, ...(error.details ? { details: error.details } : {}) };
}
