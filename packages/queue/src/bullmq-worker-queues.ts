import {
  jobRegistry,
  QUEUE_NAMES,
  type JobName,
  type JobNotifier,
  type JobPayload,
  type JobRunner,
  type QueueName,
} from '@docshelf/core';
import { Queue, QueueEventsProducer } from 'bullmq';
import { Redis } from 'ioredis';
import { consumerConnection } from './connections';
import { EVENT_STREAM_LENGTH, JOB_CHANGED_EVENT, JOB_EVENTS_QUEUE, jobOptionsFor } from './job-options';

/** The least time between two job-changed notifications of one job from one worker process. */
const NOTIFY_GAP_MS = 100;

export interface BullmqWorkerQueuesOptions {
  redisUrl: string;
  prefix: string;
  onError?: (error: Error, source: string) => void;
}

/**
 * What a worker adds to the queues while it runs workflows: child jobs, callbacks, job-changed events. Unlike the
 * API's fail-fast producer it waits out a Redis restart, so a blip delays a crawl instead of failing its pages.
 */
export class BullmqWorkerQueues implements JobNotifier, Pick<JobRunner, 'enqueue'> {
  private readonly redis: Redis;
  private readonly queues = new Map<QueueName, Queue>();
  private readonly events: QueueEventsProducer;
  private readonly report: (error: Error, source: string) => void;
  /** Jobs with a notification on its way or just sent, and whether another change came meanwhile. */
  private readonly notifying = new Map<string, boolean>();
  private readonly gaps = new Set<NodeJS.Timeout>();

  constructor(options: BullmqWorkerQueuesOptions) {
    const report = (this.report = options.onError ?? (() => undefined));
    const { url: _url, ...connection } = consumerConnection(options.redisUrl);
    this.redis = new Redis(options.redisUrl, connection);
    this.redis.on('error', (error) => report(error, 'redis'));
    for (const name of QUEUE_NAMES) {
      const queue = new Queue(name, { connection: this.redis, prefix: options.prefix });
      queue.on('error', (error) => report(error, `queue:${name}`));
      this.queues.set(name, queue);
    }
    this.events = new QueueEventsProducer(JOB_EVENTS_QUEUE, { connection: this.redis, prefix: options.prefix });
  }

  queueOf = (name: JobName): Queue => this.queues.get(jobRegistry[name].queue)!;

  async enqueue<N extends JobName>(name: N, payload: JobPayload<N>, options: { jobId: string }): Promise<void> {
    await this.queueOf(name).add(
      name,
      jobRegistry[name].payload.parse(payload),
      jobOptionsFor(name, { jobId: options.jobId }),
    );
  }

  /**
   * Returns at once: followers re-read the record when told, so a burst of changes needs one notification and one
   * after it, never one per change (a crawl's page jobs end many times a second), and the job does not wait for Redis
   * to hear it. Notifications of one job are NOTIFY_GAP_MS apart at least; the last change is always told.
   */
  jobChanged(jobId: string): Promise<void> {
    if (this.notifying.has(jobId)) {
      this.notifying.set(jobId, true);
    } else {
      this.notifying.set(jobId, false);
      void this.publish(jobId);
    }
    return Promise.resolve();
  }

  private async publish(jobId: string): Promise<void> {
    try {
      await this.events.publishEvent({ eventName: JOB_CHANGED_EVENT, jobId }, EVENT_STREAM_LENGTH);
    } catch (error) {
      this.report(error as Error, 'job-events');
    }
    const timer = setTimeout(() => {
      this.gaps.delete(timer);
      if (!this.notifying.get(jobId)) return void this.notifying.delete(jobId);
      this.notifying.set(jobId, false);
      void this.publish(jobId);
    }, NOTIFY_GAP_MS);
    this.gaps.add(timer);
  }

  async close(): Promise<void> {
    this.gaps.forEach((timer) => clearTimeout(timer));
    await this.events.close();
    await Promise.all([...this.queues.values()].map((q) => q.close()));
    this.redis.disconnect();
  }
}
