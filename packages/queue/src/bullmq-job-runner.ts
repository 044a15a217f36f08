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
import type { Redis } from 'ioredis';
import { consumerConnection, createProducerRedis } from './connections';
import { DEFAULT_JOB_OPTIONS } from './job-options';
import { pingRedis, watchRedisAvailability } from './redis-health';

export interface BullmqJobRunnerOptions {
  redisUrl: string;
  prefix: string;
  /** How long the API waits for a job before answering 504 with the job id. */
  waitTimeoutMs: number;
  /** Connection errors of the queues and their event streams; they retry on their own, this only reports. */
  onError?: (error: Error, source: string) => void;
}

/** Enqueues a job and awaits its result through one long-lived QueueEvents per queue. */
export class BullmqJobRunner implements JobRunner {
  private readonly queues = new Map<QueueName, Queue>();
  private readonly events = new Map<QueueName, QueueEvents>();
  private readonly producer: Redis;
  private readonly ensureRedisAvailable: () => Promise<void>;

  constructor(private readonly options: BullmqJobRunnerOptions) {
    const report = options.onError ?? (() => undefined);
    this.producer = createProducerRedis(options.redisUrl);
    this.ensureRedisAvailable = watchRedisAvailability(this.producer, (error) => report(error, 'redis'));
    for (const name of QUEUE_NAMES) {
      const queue = new Queue(name, { connection: this.producer, prefix: options.prefix, defaultJobOptions: DEFAULT_JOB_OPTIONS });
      const events = new QueueEvents(name, { connection: consumerConnection(options.redisUrl), prefix: options.prefix });
      // Without listeners BullMQ prints every reconnect failure to stderr.
      queue.on('error', (error) => report(error, `queue:${name}`));
      events.on('error', (error) => report(error, `queue-events:${name}`));
      this.queues.set(name, queue);
      this.events.set(name, events);
    }
  }

  /** Readiness: PING on the fail-fast producer connection; throws with the reason when Redis is unreachable. */
  ping(timeoutMs = 1_000): Promise<void> {
    return pingRedis(this.producer, this.ensureRedisAvailable, timeoutMs);
  }

  /** The queues, for dashboards and metrics. */
  allQueues(): Queue[] {
    return [...this.queues.values()];
  }

  async run<N extends JobName>(name: N, payload: JobPayload<N>, options: { timeoutMs?: number } = {}): Promise<JobResult<N>> {
    const spec = jobRegistry[name];
    const data = spec.payload.parse(payload);
    const queue = this.queues.get(spec.queue)!;
    const events = this.events.get(spec.queue)!;
    let job;
    try {
      await this.ensureRedisAvailable();
      job = await queue.add(name, data);
    } catch (error) {
      throw serviceUnavailable('QUEUE_UNAVAILABLE', `The job queue is unavailable: ${(error as Error).message}`);
    }
    let value: unknown;
    try {
      value = await job.waitUntilFinished(events, options.timeoutMs ?? this.options.waitTimeoutMs);
    } catch (error) {
      throw rebuildJobError(error as Error, job.id);
    }
    return spec.result.parse(value) as JobResult<N>;
  }

  async close(): Promise<void> {
    await Promise.all([...this.events.values()].map((e) => e.close()));
    await Promise.all([...this.queues.values()].map((q) => q.close()));
    // The queues share this connection, so they leave it open.
    this.producer.disconnect();
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
