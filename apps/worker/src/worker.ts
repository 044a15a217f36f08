import { randomUUID } from 'node:crypto';
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import { AppError, encodeAppError, jobRegistry, jobsOfQueue, type JobName, type QueueName } from '@docshelf/core';
import { consumerConnection } from '@docshelf/queue';
import type { Logger } from 'pino';
import { buildProcessors, type ProcessorMap } from './processors';
import type { WorkerDeps } from './worker-deps';

export interface WorkerOptions {
  redisUrl: string;
  prefix: string;
  queues: readonly QueueName[];
  concurrency: number;
  logger: Logger;
}

export interface RunningWorkers {
  workers: Worker[];
  close(): Promise<void>;
}

/** Starts one BullMQ Worker per queue; each job is validated, processed and its error encoded for the waiting API. */
export function startWorkers(deps: WorkerDeps, options: WorkerOptions): RunningWorkers {
  const processors = buildProcessors(deps);
  const workers = options.queues.map((queue) => {
    const worker = new Worker(queue, (job) => runJob(processors, job, options.logger), {
      connection: consumerConnection(options.redisUrl),
      prefix: options.prefix,
      concurrency: options.concurrency,
    });
    worker.on('error', (error) => options.logger.error({ err: error, queue }, 'worker error'));
    options.logger.info({ queue, jobs: jobsOfQueue(queue), concurrency: options.concurrency }, 'worker started');
    return worker;
  });
  return {
    workers,
    close: async () => {
      await Promise.all(workers.map((w) => w.close()));
    },
  };
}

async function runJob(processors: ProcessorMap, job: Job, rootLogger: Logger): Promise<unknown> {
  const logger = rootLogger.child({ queue: job.queueName, jobId: job.id, job: job.name });
  const started = Date.now();
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
    logger.info({ ms: Date.now() - started, outcome: 'completed' }, 'job completed');
    return result;
  } catch (error) {
    const appError = toAppError(error, logger);
    const final = !appError.retryable || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    logger.warn({ ms: Date.now() - started, outcome: final ? 'failed' : 'retrying', code: appError.code }, 'job failed');
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
