import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { RedisHostThrottle } from './redis-host-throttle';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('RedisHostThrottle (real Redis)', () => {
  const prefix = `throttle-test-${randomUUID()}`;
  const redis = new Redis(REDIS_URL);
  const throttle = new RedisHostThrottle(REDIS_URL, prefix);
  const nextTurn = async (host: string) => Number(await redis.get(`${prefix}:host-turn:${host}`));

  afterAll(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    throttle.close();
    redis.disconnect();
  });

  it('extends the current turn of a host: its next turn comes that much later, for every worker', async () => {
    await throttle.waitTurn('docs.test', 200);
    const afterTurn = await nextTurn('docs.test');
    await throttle.extendTurn('docs.test', 300);
    expect((await nextTurn('docs.test')) - afterTurn).toBeGreaterThanOrEqual(300);
    // Another host's turns are its own.
    expect(await redis.exists(`${prefix}:host-turn:other.test`)).toBe(0);
  });

  it('takes a new turn when its wait ends a whole interval late, rather than go out beside the next turns', async () => {
    const host = 'late.test';
    await throttle.waitTurn(host, 100);
    const start = Date.now();
    const waiting = throttle.waitTurn(host, 100);
    // The event loop is held for 350 ms while the waiter's 100 ms timer runs: it wakes about 250 ms late.
    setTimeout(() => {
      for (const until = Date.now() + 350; Date.now() < until;);
    }, 20);
    await waiting;
    // Woken late, it took the turn after that late moment: the host's next free turn is 100 ms after it, not the
    // 200 ms after the start that the turn it had been given would have left.
    expect((await nextTurn(host)) - start).toBeGreaterThanOrEqual(400);
  });
});
