import { randomUUID } from 'node:crypto';
import { UnrecoverableError, type Job } from 'bullmq';
import {
  AppError,
  announceEnd,
  decodeAppError,
  encodeAppError,
  endRootJob,
  errorBodyOf,
  jobCancelled,
  jobRegistry,
  jobTypeOf,
  openRootJob,
  standaloneJobContext,
  type JobContext,
  type JobName,
  type JobStore,
  type LifecycleDeps,
  type StoredJob,
  restoredAppError,
} from '@docshelf/core';
import { recordJobAttempt, type JobOutcome } from '@docshelf/observability';
import { addChildrenTo, isWaitingForChildren, runStepJob, type BullmqWorkerQueues } from '@docshelf/queue';
import type { Logger } from 'pino';
import type { WorkerMetrics } from './ops/worker-metrics';
import type { ProcessorMap } from './processors';
import { JobRecordWriter } from './job-record-writer';

export interface JobRuntime {
  processors: ProcessorMap;
  jobStore: JobStore;
  queues: BullmqWorkerQueues;
  logger: Logger;
  metrics: WorkerMetrics;
}

/** How often a running job of a workflow looks whether the workflow was cancelled. */
const CANCEL_CHECK_MS = 500;

/**
 * One attempt of one job: validate the payload, run its processor or workflow step, and encode its error for the
 * waiting API. A workflow root also keeps its job record: running, then its outcome; a cancelled workflow stops,
 * drops what it staged and commits nothing.
 */
export async function runJob(
  rt: JobRuntime,
  job: Job,
  token: string | undefined,
  bullSignal?: AbortSignal,
): Promise<unknown> {
  const logger = rt.logger.child({ queue: job.queueName, jobId: job.id, job: job.name });
  const started = Date.now();
  const finish = (outcome: JobOutcome, result?: unknown) => {
    const ms = Date.now() - started;
    const renderedWith = (result as { renderedWith?: unknown } | undefined)?.renderedWith;
    recordJobAttempt(rt.metrics.jobs, {
      queue: job.queueName,
      job: job.name,
      outcome,
      seconds: ms / 1000,
      renderedWith: typeof renderedWith === 'string' ? renderedWith : undefined,
    });
    return ms;
  };
  const lifecycle: LifecycleDeps = { jobStore: rt.jobStore, notifier: rt.queues, jobs: rt.queues };
  const cancellation = new AbortController();
  let stopWatching = () => undefined as void;
  let writer: JobRecordWriter | undefined;
  let name: JobName | undefined;
  let payload: unknown;
  let record: StoredJob | undefined;
  const rootId = () => (name && jobTypeOf(name) ? job.id! : undefined);
  try {
    name = parseJobName(job.name);
    const spec = jobRegistry[name];
    const parsed = spec.payload.safeParse(job.data);
    if (!parsed.success) {
      throw new AppError('INVALID_JOB', `Job payload of '${name}' is invalid`, 500, {
        retryable: false,
        details: parsed.error.issues,
      });
    }
    payload = parsed.data;
    const workflowId = rootId() ?? job.parent?.id;
    const signal = bullSignal ? AbortSignal.any([cancellation.signal, bullSignal]) : cancellation.signal;
    if (rootId()) {
      record = await openRootJob(lifecycle, job.id!);
      // An earlier attempt recorded the outcome and then lost its worker before BullMQ heard of it.
      if (record.state === 'completed') {
        await announceEnd(lifecycle, record);
        return spec.result.parse(record.result);
      }
      if (record.state === 'failed')
        throw restoredAppError(record.error?.code ?? 'JOB_FAILED', record.error?.error ?? 'Job failed', 500, {
          retryable: false,
        });
      if (record.state === 'cancelled') throw jobCancelled(job.id!);
    } else if (workflowId && (await rt.jobStore.getJob(workflowId))?.state === 'cancelled') {
      // A job of a cancelled workflow does nothing: no page is fetched after the cancel.
      throw jobCancelled(workflowId);
    }
    if (workflowId) {
      writer = new JobRecordWriter(
        {
          jobStore: rt.jobStore,
          notifier: rt.queues,
          onError: (error) => logger.warn({ err: error, workflowId }, 'could not record progress'),
        },
        workflowId,
        rootId() !== undefined,
      );
      stopWatching = watchCancellation(rt.jobStore, workflowId, cancellation);
    }
    const root = rootId()
      ? { id: job.id!, queue: job.queueQualifiedName }
      : job.parent?.id
        ? { id: job.parent.id, queue: job.parent.queueKey }
        : undefined;
    const ctx = workflowId && writer && root ? workflowContext(rt, root, signal, writer) : standaloneJobContext(signal);
    const processor = rt.processors[name];
    const value =
      typeof processor === 'function'
        ? await (processor as (p: unknown, c: JobContext) => Promise<unknown>)(payload, ctx)
        : await runStepJob(job, token!, processor, payload as never, ctx, rt.queues.queueOf);
    const result = spec.result.parse(value);
    if (record && writer)
      await endRootJob(lifecycle, record, { state: 'completed', result }, await writer.takeFinalWrite());
    else await writer?.flush();
    logger.info({ ms: finish('completed', result), outcome: 'completed' }, 'job completed');
    return result;
  } catch (error) {
    await writer?.flush();
    if (isWaitingForChildren(error)) {
      logger.info({ ms: Date.now() - started, outcome: 'waiting-children' }, 'job waiting for its child jobs');
      throw error;
    }
    let appError = toAppError(error, logger);
    const final = !appError.retryable || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    const root = rootId();
    if (root)
      appError = await settleRootFailure(rt, lifecycle, {
        job: record ?? { id: root },
        name: name!,
        payload,
        error: appError,
        final,
      });
    const outcome = final || appError.code === 'JOB_CANCELLED' ? 'failed' : 'retrying';
    logger.warn({ ms: finish(outcome), outcome, code: appError.code }, 'job failed');
    // Nobody waits for a delivery: the log (and the queue's failed list) is the only place its loss shows.
    if (outcome === 'failed' && name === 'deliver-callback')
      logger.error(
        {
          callbackOf: (payload as { jobId?: string } | undefined)?.jobId,
          attempts: job.attemptsMade + 1,
          code: appError.code,
          err: appError,
        },
        'callback not delivered; no attempts left',
      );
    const message = encodeAppError(appError);
    throw appError.retryable ? new Error(message) : new UnrecoverableError(message);
  } finally {
    stopWatching();
  }
}

/** A root that stops for good drops what it staged; its record gets the outcome (unless a cancel came first). */
async function settleRootFailure(
  rt: JobRuntime,
  lifecycle: LifecycleDeps,
  failure: {
    job: Pick<StoredJob, 'id' | 'callbackUrl'>;
    name: JobName;
    payload: unknown;
    error: AppError;
    final: boolean;
  },
): Promise<AppError> {
  const processor = rt.processors[failure.name];
  const discard = async () => {
    if (typeof processor !== 'function') await processor.discard?.(failure.payload as never);
  };
  const stored = await rt.jobStore.getJob(failure.job.id);
  if (!stored) return failure.error;
  if (stored.state === 'cancelled') {
    await discard();
    await announceEnd(lifecycle, stored);
    return jobCancelled(stored.id);
  }
  if (failure.final) {
    await discard();
    await endRootJob(lifecycle, stored, {
      state: 'failed',
      error: errorBodyOf(failure.error),
      status: failure.error.status,
    });
  }
  return failure.error;
}

function workflowContext(
  rt: JobRuntime,
  root: { id: string; queue: string },
  signal: AbortSignal,
  writer: JobRecordWriter,
): JobContext {
  const workflowId = root.id;
  return {
    workflowId,
    signal,
    reportProgress: (change) => writer.report(change),
    beginCommit: async () => {
      if (!(await rt.jobStore.claimCommit(workflowId, new Date()))) throw jobCancelled(workflowId);
    },
    addToWorkflow: (children) => addChildrenTo(root, children, rt.queues.queueOf),
  };
}

/** Aborts the job's signal once its workflow is cancelled, so a page render or an embedding stops early. */
function watchCancellation(jobStore: JobStore, workflowId: string, controller: AbortController): () => void {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const check = async () => {
    try {
      if ((await jobStore.getJob(workflowId))?.state === 'cancelled') {
        controller.abort(jobCancelled(workflowId));
        return;
      }
    } catch {
      // The record store is briefly unreachable: look again next time.
    }
    if (!stopped) timer = setTimeout(scheduleCheck, CANCEL_CHECK_MS);
  };
  // check() catches its own failures, so the timer's promise is never left rejected.
  const scheduleCheck = () => void check();
  timer = setTimeout(scheduleCheck, CANCEL_CHECK_MS);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

function parseJobName(name: string): JobName {
  if (name in jobRegistry) return name as JobName;
  throw new AppError('UNKNOWN_JOB', `No processor for job '${name}'`, 500, { retryable: false });
}

/** Unexpected errors get an errorId that is also in the log, and a message that leaks nothing internal. */
function toAppError(error: unknown, logger: Logger): AppError {
  if (error instanceof AppError) return error;
  const decoded = error instanceof Error ? decodeAppError(error.message) : undefined;
  if (decoded) return decoded;
  const errorId = randomUUID();
  logger.error({ err: error, errorId }, 'unexpected job error');
  return new AppError('INTERNAL', `Internal error (errorId ${errorId})`, 500, { retryable: true });
}
