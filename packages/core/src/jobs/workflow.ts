import type { z } from 'zod';
import { AppError } from '../errors';
import type { ProgressChange } from './job-record';
import type { JobName, JobPayload, JobResult } from './registry';

/** What a processor may use beyond its payload. */
export interface JobContext {
  /** The job clients follow: the job itself for a workflow root, its root for a child; undefined for other jobs. */
  readonly workflowId?: string;
  /** Aborted when the workflow is cancelled or the worker has to stop the job. */
  readonly signal: AbortSignal;
  /** Records the workflow's progress and tells whoever follows it; a no-op outside a workflow. */
  reportProgress(change: ProgressChange): Promise<void>;
  /** The point of no return before the library is written; throws JOB_CANCELLED when the job was cancelled first. */
  beginCommit(): Promise<void>;
  /**
   * Adds jobs to the workflow this job belongs to, as further children its root waits for (a crawl page hands out
   * the pages it found). A key already added adds nothing. Outside a workflow it throws.
   */
  addToWorkflow(children: ChildJob[]): Promise<void>;
}

/** A job a workflow step waits for; `key` names it within the workflow, so a repeated step adds no duplicate. */
export type ChildJob = {
  [N in JobName]: {
    key: string;
    name: N;
    payload: JobPayload<N>;
  };
}[JobName];

export type ChildOutcome = { key: string; ok: true; value: unknown } | { key: string; ok: false; error: AppError };

/**
 * A step either waits for child jobs (the workflow resumes with their outcomes, failures included, and the new
 * state) or ends. A failed child fails the workflow only when the next step says so (see childResult). The next
 * step also gets the outcomes of the jobs those children added to the workflow (JobContext.addToWorkflow).
 */
export type Step<S, R> = { wait: ChildJob[]; state: S } | { done: R };

/**
 * A job that runs as steps and waits for child jobs between them without holding a worker slot. Its state travels
 * with the job (small: URLs and counts, never chunks), so a retried or resumed run continues where it was.
 */
export interface Workflow<N extends JobName, S> {
  readonly state: z.ZodType<S>;
  step(
    payload: JobPayload<N>,
    state: S | undefined,
    children: ChildOutcome[],
    ctx: JobContext,
  ): Promise<Step<S, JobResult<N>>>;
  /** Drops what a run that will not finish left staged (never the library itself). */
  discard?(payload: JobPayload<N>): Promise<void>;
}

export const jobCancelled = (jobId: string) =>
  new AppError('JOB_CANCELLED', `Job ${jobId} was cancelled`, 409, { retryable: false, jobId });

/** The outcome of child `key`, whose value must parse with `schema`; a failed child rethrows its error. */
export function childResult<T>(children: ChildOutcome[], key: string, schema: z.ZodType<T>): T {
  const outcome = children.find((c) => c.key === key);
  if (!outcome) throw new AppError('CHILD_JOB_MISSING', `No outcome for step '${key}'`, 500);
  if (!outcome.ok) throw outcome.error;
  return schema.parse(outcome.value);
}

/** A context for jobs that belong to no workflow. */
export function standaloneJobContext(signal: AbortSignal = new AbortController().signal): JobContext {
  return {
    signal,
    reportProgress: () => Promise.resolve(),
    beginCommit: () => Promise.resolve(),
    addToWorkflow: () =>
      Promise.reject(
        new AppError('NO_WORKFLOW', 'This job belongs to no workflow: it cannot add jobs to one', 500, {
          retryable: false,
        }),
      ),
  };
}
