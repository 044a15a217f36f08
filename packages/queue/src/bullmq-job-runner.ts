import { Queue, QueueEvents } from 'bullmq';
import {
  AppError,
  decodeAppError,
  jobRegistry,
  QUEUE_NAMES,
  serviceUnavailable,
  type JobName,
  type JobPayload,
  type JobResult,
  type JobRunner,
  type QueueName,
} from '@docshelf/core';
import { consumerConnection, producerConnection } from './connections';
import { DEFAULT_JOB_OPTIONS } from './job-options';

export interface BullmqJobRunnerOptions {
  redisUrl: string;
  prefix: string;
  /** How long the API waits for a job before answering 504 with the job id. */
  waitTimeoutMs: number;
}

/** Enqueues a job and awaits its result through one long-lived QueueEvents per queue. */
export class BullmqJobRunner implements JobRunner {
  private readonly queues = new Map<QueueName, Queue>();
  private readonly events = new Map<QueueName, QueueEvents>();

  constructor(private readonly options: BullmqJobRunnerOptions) {
    for (const name of QUEUE_NAMES) {
      this.queues.set(name, new Queue(name, { connection: producerConnection(options.redisUrl), prefix: options.prefix, defaultJobOptions: DEFAULT_JOB_OPTIONS }));
      this.events.set(name, new QueueEvents(name, { connection: consumerConnection(options.redisUrl), prefix: options.prefix }));
    }
  }

  /** The queues, for dashboards and metrics. */
  allQueues(): Queue[] {
    return [...this.queues.values()];
  }

  async run<N extends JobName>(name: N, payload: JobPayload<N>): Promise<JobResult<N>> {
    const spec = jobRegistry[name];
    const data = spec.payload.parse(payload);
    const queue = this.queues.get(spec.queue)!;
    const events = this.events.get(spec.queue)!;
    let job;
    try {
      job = await queue.add(name, data);
    } catch (error) {
      throw serviceUnavailable('QUEUE_UNAVAILABLE', `The job queue is unavailable: ${(error as Error).message}`);
    }
    let value: unknown;
    try {
      value = await job.waitUntilFinished(events, this.options.waitTimeoutMs);
    } catch (error) {
      throw rebuildJobError(error as Error, job.id);
    }
    return spec.result.parse(value) as JobResult<N>;
  }

  async close(): Promise<void> {
    await Promise.all([...this.events.values()].map((e) => e.close()));
    await Promise.all([...this.queues.values()].map((q) => q.close()));
  }
}

function rebuildJobError(error: Error, jobId: string | undefined): AppError {
  const decoded = decodeAppError(error.message);
  if (decoded) return decoded;
  if (error.message.startsWith('Job wait ') && error.message.includes('timed out')) {
    return new AppError('JOB_TIMEOUT', 'The job did not finish in time; it is still queued or running', 504, {
      jobId,
      retryable: true,
    });
  }
  return new AppError('JOB_FAILED', `Job ${jobId ?? ''} failed: ${error.message}`, 500);
}
