import type { RedisOptions } from 'bullmq';
import { Redis } from 'ioredis';

/** Producers fail fast when Redis is down, so the API can answer 503 instead of hanging. */
export function producerConnection(url: string): RedisOptions {
  return { url, enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2_000 };
}

/** Workers and event listeners keep retrying forever: a Redis restart must not kill them. */
export function consumerConnection(url: string): RedisOptions {
  // BullMQ's own back-off grows to 20 s; a restarted Redis should be picked up within a few seconds.
  return {
    url,
    maxRetriesPerRequest: null,
    enableOfflineQueue: true,
    retryStrategy: (attempt) => Math.min(attempt * 250, 3_000),
  };
}

/**
 * A consumer connection that opens on first use, so an instance that never sends a command never connects; after
 * `close()` the next use opens a new one.
 */
export class LazyConsumerRedis {
  private connection: Redis | undefined;

  constructor(private readonly url: string) {}

  get(): Redis {
    if (!this.connection) {
      const { url: _url, ...options } = consumerConnection(this.url);
      this.connection = new Redis(this.url, options);
    }
    return this.connection;
  }

  close(): void {
    this.connection?.disconnect();
    this.connection = undefined;
  }
}

/**
 * One producer connection shared by every Queue of a process. It is an instance rather than options because BullMQ
 * awaits the first connection before sending any command: with Redis down at boot `queue.add` would hang, whereas
 * the instance's status lets callers refuse at once.
 */
export function createProducerRedis(url: string): Redis {
  const { url: _url, ...options } = producerConnection(url);
  return new Redis(url, { ...options, retryStrategy: (attempt) => Math.min(attempt * 100, 2_000) });
}
