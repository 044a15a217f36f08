import { Queue, QueueEvents, QueueEventsProducer } from 'bullmq';
import {
  AppError,
  decodeAppError,
  JOB_NAMES,
  jobRegistry,
  jobTypeOf,
  QUEUE_NAMES,
  serviceUnavailable,
  type JobName,
  type JobNotifier,
  type JobPayload,
  type JobResult,
  type JobRunner,
  type JobWatcher,
  type QueueName,
  type RefreshScheduler,
  type WorkflowHalter,
} from '@docshelf/core';
import type { Redis } from 'ioredis';
import { consumerConnection, createProducerRedis } from './connections';
import {
  DEFAULT_JOB_OPTIONS,
  EVENT_STREAM_LENGTH,
  JOB_CHANGED_EVENT,
  JOB_EVENTS_QUEUE,
  jobOptionsFor,
} from './job-options';
import { pingRedis, watchRedisAvailability } from './redis-health';
import { haltWorkflow } from './halt-workflow';

/** The queues root jobs run on: their completion and failure events end a job's event stream. */
const ROOT_QUEUES = [...new Set(JOB_NAMES.filter((name) => jobTypeOf(name)).map((name) => jobRegistry[name].queue))];
/**
 * The page jobs of crawls are awaited by their coordinator, and callback deliveries by nobody: the events of their
 * queues (several per page) are not read here.
 */
const UNAWAITED_QUEUES: ReadonlySet<QueueName> = new Set(['crawl', 'callbacks']);

export interface BullmqJobRunnerOptions {
  redisUrl: string;
  prefix: string;
  /** How long the API waits for a job before answering 504 with the job id. */
  waitTimeoutMs: number;
  /** Connection errors of the queues and their event streams; they retry on their own, this only reports. */
  onError?: (error: Error, source: string) => void;
}

/**
 * The API's side of the queues: enqueues jobs and awaits them through one long-lived QueueEvents per queue, follows
 * job-changed events for live progress, stops cancelled workflows, and keeps the job schedulers of scheduled refreshes.
 */
export class BullmqJobRunner implements JobRunner, JobWatcher, JobNotifier, WorkflowHalter, RefreshScheduler {
  private readonly queues = new Map<QueueName, Queue>();
  private readonly events = new Map<QueueName, QueueEvents>();
  private readonly producer: Redis;
  private readonly ensureRedisAvailable: () => Promise<void>;
  private readonly jobEvents: QueueEventsProducer;
  private readonly report: (error: Error, source: string) => void;

  constructor(private readonly options: BullmqJobRunnerOptions) {
    const report = (this.report = options.onError ?? (() => undefined));
    this.producer = createProducerRedis(options.redisUrl);
    this.ensureRedisAvailable = watchRedisAvailability(this.producer, (error) => report(error, 'redis'));
    for (const name of QUEUE_NAMES) {
      const queue = new Queue(name, {
        connection: this.producer,
        prefix: options.prefix,
        defaultJobOptions: DEFAULT_JOB_OPTIONS,
      });
      // Without listeners BullMQ prints every reconnect failure to stderr.
      queue.on('error', (error) => report(error, `queue:${name}`));
      this.queues.set(name, queue);
      if (UNAWAITED_QUEUES.has(name)) continue;
      const events = new QueueEvents(name, {
        connection: consumerConnection(options.redisUrl),
        prefix: options.prefix,
      });
      events.on('error', (error) => report(error, `queue-events:${name}`));
      this.events.set(name, events);
    }
    // Every SSE client of a job listens on these.
    for (const queue of new Set([JOB_EVENTS_QUEUE, ...ROOT_QUEUES])) this.events.get(queue)!.setMaxListeners(0);
    this.jobEvents = new QueueEventsProducer(JOB_EVENTS_QUEUE, { connection: this.producer, prefix: options.prefix });
  }

  /** Readiness: PING on the fail-fast producer connection; throws with the reason when Redis is unreachable. */
  ping(timeoutMs = 1_000): Promise<void> {
    return pingRedis(this.producer, this.ensureRedisAvailable, timeoutMs);
  }

  /** The queues, for dashboards and metrics. */
  allQueues(): Queue[] {
    return [...this.queues.values()];
  }

  async run<N extends JobName>(
    name: N,
    payload: JobPayload<N>,
    options: { timeoutMs?: number; jobId?: string } = {},
  ): Promise<JobResult<N>> {
    const spec = jobRegistry[name];
    const events = this.events.get(spec.queue);
    if (!events) throw new AppError('JOB_NOT_AWAITABLE', `The API does not await '${name}' jobs`, 500);
    const job = await this.add(name, payload, options.jobId);
    let value: unknown;
    try {
      value = await job.waitUntilFinished(events, options.timeoutMs ?? this.options.waitTimeoutMs);
    } catch (error) {
      throw rebuildJobError(error as Error, job.id);
    }
    return spec.result.parse(value) as JobResult<N>;
  }

  async enqueue<N extends JobName>(name: N, payload: JobPayload<N>, options: { jobId: string }): Promise<void> {
    await this.add(name, payload, options.jobId);
  }

  /** Job-changed events from workers and cancels, and the root job's own end in its queue (which follows its record). */
  watchJob(jobId: string, onChange: () => void): () => void {
    const listener = () => onChange();
    const subscriptions = [
      [JOB_EVENTS_QUEUE, `${JOB_CHANGED_EVENT}:${jobId}`],
      ...ROOT_QUEUES.flatMap((queue) => [
        [queue, `completed:${jobId}`],
        [queue, `failed:${jobId}`],
      ]),
    ] as [QueueName, 'progress'][];
    for (const [queue, event] of subscriptions) this.events.get(queue)!.on(event, listener);
    return () => subscriptions.forEach(([queue, event]) => this.events.get(queue)!.off(event, listener));
  }

  /** Best effort: followers also re-read on their own, so a notification lost to a Redis outage only delays them. */
  async jobChanged(jobId: string): Promise<void> {
    try {
      await this.ensureRedisAvailable();
      await this.jobEvents.publishEvent({ eventName: JOB_CHANGED_EVENT, jobId }, EVENT_STREAM_LENGTH);
    } catch (error) {
      this.report(error as Error, 'job-events');
    }
  }

  async haltWorkflow(workflowId: string, timeoutMs: number): Promise<boolean> {
    try {
      await this.ensureRedisAvailable();
      return await haltWorkflow([...this.queues.values()], workflowId, timeoutMs);
    } catch (error) {
      this.report(error as Error, 'halt-workflow');
      return false;
    }
  }

  private async add<N extends JobName>(name: N, payload: JobPayload<N>, jobId: string | undefined) {
    const spec = jobRegistry[name];
    const data = spec.payload.parse(payload);
    try {
      await this.ensureRedisAvailable();
      return await this.queues.get(spec.queue)!.add(name, data, jobOptionsFor(name, jobId ? { jobId } : {}));
    } catch (error) {
      throw serviceUnavailable('QUEUE_UNAVAILABLE', `The job queue is unavailable: ${(error as Error).message}`);
    }
  }

  /**
   * One BullMQ job scheduler per library: it adds the library's `refresh-library` job once per interval, however many
   * workers take jobs from the queue. The first comes one interval from now (BullMQ would add one at once), and a new
   * interval counts from now: the scheduler and its next job are replaced.
   */
  async schedule(libraryId: string, everyMs: number): Promise<void> {
    const name = 'refresh-library';
    const queue = this.queues.get(jobRegistry[name].queue)!;
    await queue.removeJobScheduler(schedulerIdOf(libraryId));
    await queue.upsertJobScheduler(
      schedulerIdOf(libraryId),
      { every: everyMs, startDate: Date.now() + everyMs },
      { name, data: jobRegistry[name].payload.parse({ libraryId }), opts: jobOptionsFor(name, {}) },
    );
  }

  async unschedule(libraryId: string): Promise<void> {
    await this.queues.get(jobRegistry['refresh-library'].queue)!.removeJobScheduler(schedulerIdOf(libraryId));
  }

  async nextRefreshAt(libraryId: string): Promise<Date | null> {
    const scheduler = await this.queues
      .get(jobRegistry['refresh-library'].queue)!
      .getJobScheduler(schedulerIdOf(libraryId));
    return scheduler?.next === undefined ? null : new Date(scheduler.next);
  }

  async close(): Promise<void> {
    await this.jobEvents.close();
    await Promise.all([...this.events.values()].map((e) => e.close()));
    await Promise.all([...this.queues.values()].map((q) => q.close()));
    // The queues share this connection, so they leave it open.
    this.producer.disconnect();
  }
}

/** Scheduler ids are the library's: one schedule per library. */
const schedulerIdOf = (libraryId: string) => `refresh:${libraryId}`;

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
