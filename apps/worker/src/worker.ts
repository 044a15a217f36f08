import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import { AppError, encodeAppError, jobRegistry, jobsOfQueue, type JobName, type QueueName } from '@docshelf/core';
import { recordJobAttempt, type JobOutcome } from '@docshelf/observability';
import { consumerConnection } from '@docshelf/queue';
import type { Logger } from 'pino';
import { ActiveJobs } from './ops/active-jobs';
import { instrumentEmbedder } from './ops/instrumented-embedder';
import { createWorkerMetrics, type WorkerMetrics } from './ops/worker-metrics';
import { buildProcessors, type ProcessorMap } from './processors';
import type { WorkerDeps } from './worker-deps';

export interface WorkerOptions {
  redisUrl: string;
  prefix: string;
  queues: readonly QueueName[];
  concurrency: Record<QueueName, number>;
  logger: Logger;
  /** Job, crawl and embedding metrics; a private registry when absent. */
  metrics?: WorkerMetrics;
  /** A crashed worker's job is retried by another after at most lockDurationMs + stalledIntervalMs (BullMQ defaults when absent). */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
}

export interface RunningWorkers {
  workers: Worker[];
  /** Stops taking jobs and waits for the active ones to finish. */
  close(): Promise<void>;
  /** Jobs being processed right now. */
  activeCount(): number;
  /** Moves the active jobs back to the queue; for a shutdown that ran out of time. */
  handBackActiveJobs(): Promise<{ handedBack: string[]; failed: string[] }>;
  /** Per queue, whether its BullMQ worker is running (fetching jobs). */
  status(): { queue: string; running: boolean }[];
}

/** Starts one BullMQ Worker per queue; each job is validated, processed and its error encoded for the waiting API. */
export function startWorkers(deps: WorkerDeps, options: WorkerOptions): RunningWorkers {
  const metrics = options.metrics ?? createWorkerMetrics();
  const processors = buildProcessors({ ...deps, embedder: instrumentEmbedder(deps.embedder, metrics.embedding) });
  const active = new ActiveJobs();
  const workers = options.queues.map((queue) => {
    const worker = new Worker(queue, (job, token) => active.track(job, token, () => runJob(processors, job, options.logger, metrics)), {
      connection: consumerConnection(options.redisUrl),
      prefix: options.prefix,
      concurrency: options.concurrency[queue],
      name: `${os.hostname()}:${process.pid}`,
      ...(options.lockDurationMs ? { lockDuration: options.lockDurationMs } : {}),
      ...(options.stalledIntervalMs ? { stalledInterval: options.stalledIntervalMs } : {}),
    });
    worker.on('error', (error) => options.logger.error({ err: error, queue }, 'worker error'));
    worker.on('stalled', (jobId) => options.logger.warn({ queue, jobId }, 'job stalled (its worker died or was blocked); returned to the queue'));
    options.logger.info({ queue, jobs: jobsOfQueue(queue), concurrency: options.concurrency[queue] }, 'worker started');
    return worker;
  });
  return {
    workers,
    close: async () => {
      await Promise.all(workers.map((w) => w.close()));
    },
    activeCount: () => active.size,
    handBackActiveJobs: () => active.handBack(),
    status: () => workers.map((w) => ({ queue: w.name, running: w.isRunning() })),
  };
}

async function runJob(processors: ProcessorMap, job: Job, rootLogger: Logger, metrics: WorkerMetrics): Promise<unknown> {
  const logger = rootLogger.child({ queue: job.queueName, jobId: job.id, job: job.name });
  const started = Date.now();
  const finish = (outcome: JobOutcome) => {
    const ms = Date.now() - started;
    recordJobAttempt(metrics.jobs, { queue: job.queueName, job: job.name, outcome, seconds: ms / 1000 });
    return ms;
  };
  try {
    const name = parseJobName(job.name);
    const spec = jobRegistry[name];
    const payload = spec.payload.safeParse(job.data);
    if (!payload.success) {
      throw new AppError('INVALID_JOB', `Job payload of '${name}' is invalid`, 500, {
        retryable: false,
        details: payload.error.issues,
      });
    }
    const processor = processors[name] as (p: unknown) => Promise<unknown>;
    const result = spec.result.parse(await processor(payload.data));
    logger.info({ ms: finish('completed'), outcome: 'completed' }, 'job completed');
    return result;
  } catch (error) {
    const appError = toAppError(error, logger);
    const final = !appError.retryable || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    const outcome = final ? 'failed' : 'retrying';
    logger.warn({ ms: finish(outcome), outcome, code: appError.code }, 'job failed');
    const message = encodeAppError(appError);
    throw appError.retryable ? new Error(message) : new UnrecoverableError(message);
  }
}

function parseJobName(name: string): JobName {
  if (name in jobRegistry) return name as JobName;
  throw new AppError('UNKNOWN_JOB', `No processor for job '${name}'`, 500, { retryable: false });
}

/** Unexpected errors get an errorId that is also in the log, and a message that leaks nothing internal. */
function toAppError(error: unknown, logger: Logger): AppError {
  if (error instanceof AppError) return error;
  const errorId = randomUUID();
  logger.error({ err: error, errorId }, 'unexpected job error');
  return new AppError('INTERNAL', `Internal error (errorId ${errorId})`, 500, { retryable: true });
}
