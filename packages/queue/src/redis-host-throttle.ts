import { setTimeout as delay } from 'node:timers/promises';
import type { HostThrottle } from '@docshelf/core';
import type { Redis } from 'ioredis';
import { LazyConsumerRedis } from './connections';

// One key per host holds the time of its next free turn; each caller takes the next one and is told how long to wait.
// Redis's clock is the only clock, so workers on several machines agree.
const TAKE_TURN = `
local now = redis.call('TIME')
local t = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local free = tonumber(redis.call('GET', KEYS[1]) or '0')
local at = math.max(t, free)
local interval = tonumber(ARGV[1])
redis.call('SET', KEYS[1], at + interval, 'PX', interval + 60000)
return at - t`;

/** Turns a caller woken late gives up before it goes ahead anyway: a starved event loop must not starve the page. */
const MAX_LATE_WAKES = 3;

type TurnTakingRedis = Redis & { takeTurn(key: string, intervalMs: string): Promise<unknown> };

/**
 * HostThrottle over Redis: spaces page loads of one host across every worker process. Its connection opens on first
 * use and, like the workers', retries through a Redis restart.
 */
export class RedisHostThrottle implements HostThrottle {
  private readonly connection: LazyConsumerRedis;

  constructor(
    redisUrl: string,
    private readonly prefix: string,
  ) {
    this.connection = new LazyConsumerRedis(redisUrl);
  }

  private redis(): TurnTakingRedis {
    const redis = this.connection.get();
    // Sent by its SHA (EVALSHA), the script itself only when Redis does not have it yet.
    if (!('takeTurn' in redis)) redis.defineCommand('takeTurn', { numberOfKeys: 1, lua: TAKE_TURN });
    return redis as TurnTakingRedis;
  }

  close(): void {
    this.connection.close();
  }

  async waitTurn(host: string, intervalMs: number, signal?: AbortSignal): Promise<void> {
    if (intervalMs <= 0) return;
    for (let late = 0; ; late++) {
      const waitMs = await this.takeTurn(host, intervalMs);
      if (waitMs <= 0) return;
      const due = Date.now() + waitMs;
      // Node's abortable timer rejects with an AbortError; the caller is owed the signal's own reason.
      await delay(waitMs, undefined, { signal }).catch((error: unknown) => {
        throw signal?.aborted ? signal.reason : error;
      });
      // Woken a whole interval late (a busy event loop), the request would land in later turns' time, beside them:
      // it takes a new turn instead, so the host sees its pages spaced as promised. A few times at most.
      if (Date.now() - due < intervalMs || late >= MAX_LATE_WAKES) return;
    }
  }

  async extendTurn(host: string, intervalMs: number): Promise<void> {
    // A turn taken and not waited for: the host's next free turn moves `intervalMs` later.
    if (intervalMs > 0) await this.takeTurn(host, intervalMs);
  }

  private async takeTurn(host: string, intervalMs: number): Promise<number> {
    return Number(await this.redis().takeTurn(`${this.prefix}:host-turn:${host.toLowerCase()}`, String(intervalMs)));
  }
}
