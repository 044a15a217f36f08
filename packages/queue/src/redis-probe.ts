import type { Redis } from 'ioredis';
import { createProducerRedis } from './connections';
import { pingRedis, watchRedisAvailability } from './redis-health';

/** Readiness of a process that has no producer of its own: a PING on a fail-fast connection. */
export class RedisProbe {
  private readonly redis: Redis;
  private readonly ensureAvailable: () => Promise<void>;

  constructor(url: string, onError: (error: Error) => void = () => undefined) {
    this.redis = createProducerRedis(url);
    this.ensureAvailable = watchRedisAvailability(this.redis, onError);
  }

  ping(timeoutMs = 1_000): Promise<void> {
    return pingRedis(this.redis, this.ensureAvailable, timeoutMs);
  }

  close(): void {
    this.redis.disconnect();
  }
}
