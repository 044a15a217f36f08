import os from 'node:os';
import { Worker } from 'bullmq';
import { jobsOfQueue, type QueueName } from '@docshelf/core';
import { throttledErrorLog } from '@docshelf/observability';
import { BullmqWorkerQueues, consumerConnection } from '@docshelf/queue';
import type { Logger } from 'pino';
import { ActiveJobs } from './ops/active-jobs';
import { instrumentEmbedder } from './ops/instrumented-embedder';
import { createWorkerMetrics, type WorkerMetrics } from './ops/worker-metrics';
import { buildProcessors } from './processors';
import { runJob, type JobRuntime } from './run-job';
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
  const queues = new BullmqWorkerQueues({
    redisUrl: options.redisUrl,
    prefix: options.prefix,
    onError: throttledErrorLog(options.logger, 'redis connection error; retrying'),
  });
  const runtime: JobRuntime = {
    processors: buildProcessors({ ...deps, embedder: instrumentEmbedder(deps.embedder, metrics.embedding) }, queues),
    jobStore: deps.jobStore,
    queues,
    logger: options.logger,
    metrics,
  };
  const active = new ActiveJobs();
  const workers = options.queues.map((queue) => {
    const worker = new Worker(
      queue,
      (job, token, signal) => active.track(job, token, () => runJob(runtime, job, token, signal)),
      {
        connection: consumerConnection(options.redisUrl),
        prefix: options.prefix,
        concurrency: options.concurrency[queue],
        name: `${os.hostname()}:${process.pid}`,
        ...(options.lockDurationMs ? { lockDuration: options.lockDurationMs } : {}),
        ...(options.stalledIntervalMs ? { stalledInterval: options.stalledIntervalMs } : {}),
      },
    );
    worker.on('error', (error) => options.logger.error({ err: error, queue }, 'worker error'));
    worker.on('stalled', (jobId) =>
      options.logger.warn({ queue, jobId }, 'job stalled (its worker died or was blocked); returned to the queue'),
    );
    options.logger.info({ queue, jobs: jobsOfQueue(queue), concurrency: options.concurrency[queue] }, 'worker started');
    return worker;
  });
  return {
    workers,
    close: async () => {
      await Promise.all(workers.map((w) => w.close()));
      await queues.close();
    },
    activeCount: () => active.size,
    handBackActiveJobs: () => active.handBack(),
    status: () => workers.map((w) => ({ queue: w.name, running: w.isRunning() })),
  };
}
