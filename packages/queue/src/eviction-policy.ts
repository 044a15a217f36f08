import { Redis } from 'ioredis';
import pTimeout from 'p-timeout';

export type EvictionPolicyCheck =
  { status: 'ok'; policy: string } | { status: 'unsafe'; policy: string } | { status: 'unknown'; reason: string };

interface BootLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/** BullMQ needs `noeviction`: any other policy lets Redis silently drop queued jobs and locks under memory pressure. */
export async function checkEvictionPolicy(url: string, timeoutMs = 3_000): Promise<EvictionPolicyCheck> {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: timeoutMs,
  });
  redis.on('error', () => undefined);
  try {
    const message = `no answer within ${timeoutMs} ms`;
    await pTimeout(redis.connect(), { milliseconds: timeoutMs, message });
    const reply = (await pTimeout(redis.config('GET', 'maxmemory-policy'), {
      milliseconds: timeoutMs,
      message,
    })) as string[];
    const policy = reply[1];
    if (!policy) return { status: 'unknown', reason: 'CONFIG GET maxmemory-policy returned no value' };
    return { status: policy === 'noeviction' ? 'ok' : 'unsafe', policy };
  } catch (error) {
    return { status: 'unknown', reason: (error as Error).message };
  } finally {
    redis.disconnect();
  }
}

/** Logs the check's outcome; never blocks or fails a boot, since managed Redis often refuses CONFIG. */
export async function warnIfEvictionPolicyUnsafe(url: string, logger: BootLogger): Promise<EvictionPolicyCheck> {
  const check = await checkEvictionPolicy(url);
  if (check.status === 'ok') logger.info({ maxmemoryPolicy: check.policy }, 'redis maxmemory-policy is noeviction');
  else if (check.status === 'unsafe') {
    logger.warn(
      { maxmemoryPolicy: check.policy },
      `redis maxmemory-policy is '${check.policy}', not 'noeviction': Redis may evict queued jobs and locks under memory pressure`,
    );
  } else
    logger.warn(
      { reason: check.reason },
      'could not check redis maxmemory-policy (CONFIG GET refused or failed); make sure it is noeviction',
    );
  return check;
}
