import type { Redis } from 'ioredis';
import pTimeout from 'p-timeout';

/** How long a caller waits for a connection that is still being made for the first time. */
const FIRST_CONNECT_GRACE_MS = 1_000;

/**
 * Tracks why a fail-fast connection is unusable, so callers can say more than "Stream isn't writeable".
 * The returned function resolves when Redis can take a command and throws at once when it cannot; only the very
 * first connection of a fresh process is waited for, briefly, so a request right after boot is not refused.
 */
export function watchRedisAvailability(redis: Redis, onError: (error: Error) => void): () => Promise<void> {
  let lastError: Error | undefined;
  redis.on('error', (error: Error) => {
    lastError = error;
    onError(error);
  });
  redis.on('ready', () => {
    lastError = undefined;
  });
  return async () => {
    if (isReady(redis)) return;
    if (!lastError && (redis.status === 'connecting' || redis.status === 'connect')) await settleFirstConnection(redis);
    if (isReady(redis)) return;
    const reason = lastError ? `: ${lastError.message}` : '';
    throw new Error(`Redis is not connected (${redis.status})${reason}`);
  };
}

function isReady(redis: Redis): boolean {
  return redis.status === 'ready';
}

function settleFirstConnection(redis: Redis): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      redis.off('ready', done);
      redis.off('error', done);
      resolve();
    };
    const timer = setTimeout(done, FIRST_CONNECT_GRACE_MS);
    redis.once('ready', done);
    redis.once('error', done);
  });
}

/** PING on a connection that does not queue commands while offline, bounded by a timeout. */
export async function pingRedis(redis: Redis, ensureAvailable: () => Promise<void>, timeoutMs: number): Promise<void> {
  const ping = ensureAvailable().then(() =>
    // Between a dropped socket and ioredis noticing, the command fails with ioredis's own wording.
    redis.ping().catch((error: Error) => Promise.reject(new Error(`Redis PING failed: ${error.message}`))),
  );
  await pTimeout(ping, { milliseconds: timeoutMs, message: `Redis did not answer PING within ${timeoutMs} ms` });
}
