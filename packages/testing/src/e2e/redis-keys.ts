import { Redis } from 'ioredis';

/** Deletes every key under `prefix:` (a test's queue prefix), so the shared Redis keeps nothing of a finished test. */
export async function deleteRedisKeys(
  prefix: string,
  url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
): Promise<void> {
  const redis = new Redis(url);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
