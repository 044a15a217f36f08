/**
 * Redis beside a measured run: INFO memory's used_memory every second (its peak and what is left at the end), the
 * CPU of the redis-server process (when it runs on this machine), and which keys of the run hold the memory.
 */
import { Redis } from 'ioredis';
import { CLOCK_TICKS_PER_S, ticksOf } from './process-tree';

/** Keys of one kind (ids replaced by `<id>`), how many, and their MEMORY USAGE. */
export interface KeyGroup {
  pattern: string;
  keys: number;
  mb: number;
}

export interface RedisFigures {
  beforeMb: number;
  peakMb: number;
  /** Seconds from the start of the watch to the peak. */
  peakAtS: number;
  /** At the end (what the run left behind): used_memory, and the run's keys by kind. */
  afterMb: number;
  keysLeft: number;
  groupsLeft: KeyGroup[];
  /** CPU seconds of the redis-server process during the run. */
  cpuS?: number;
}

const MB = 2 ** 20;

const usedMemoryMb = async (redis: Redis) =>
  Number(/^used_memory:(\d+)/m.exec(await redis.info('memory'))?.[1] ?? 0) / MB;

/** A key's kind: its name under the prefix with UUIDs, long hex and numbers replaced. */
const patternOf = (key: string, prefix: string) =>
  key
    .slice(prefix.length + 1)
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<id>')
    .replace(/[0-9a-f]{16,}/gi, '<hash>')
    .replace(/(^|:)\d+(?=:|$)/g, '$1<n>');

/** The keys under `prefix:` grouped by kind, largest first (MEMORY USAGE of every key). */
async function keyGroups(redis: Redis, prefix: string): Promise<KeyGroup[]> {
  const groups = new Map<string, KeyGroup>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    const pipeline = redis.pipeline();
    keys.forEach((key) => pipeline.memory('USAGE', key, 'SAMPLES', 0));
    const sizes = (await pipeline.exec()) ?? [];
    keys.forEach((key, i) => {
      const pattern = patternOf(key, prefix);
      const group = groups.get(pattern) ?? { pattern, keys: 0, mb: 0 };
      group.keys += 1;
      group.mb += Number(sizes[i]?.[1] ?? 0) / MB;
      groups.set(pattern, group);
    });
  } while (cursor !== '0');
  return [...groups.values()].sort((a, b) => b.mb - a.mb);
}

export interface RedisWatch {
  /** CPU seconds of redis-server so far. */
  cpuS(): number | undefined;
  /** The run's keys by kind now. */
  groups(): Promise<KeyGroup[]>;
  stop(): Promise<RedisFigures>;
}

/** Starts watching the Redis at `url` for the run whose keys are under `prefix:`. */
export async function watchRedis(url: string, prefix: string): Promise<RedisWatch> {
  const startedAt = performance.now();
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  const pid = Number(/^process_id:(\d+)/m.exec(await redis.info('server'))?.[1]);
  const ticks = () => {
    try {
      return ticksOf(`/proc/${pid}/stat`);
    } catch {
      return undefined;
    }
  };
  const firstTicks = ticks();
  const beforeMb = await usedMemoryMb(redis);
  let peakMb = beforeMb;
  let peakAtS = 0;
  const timer = setInterval(() => {
    usedMemoryMb(redis).then(
      (mb) => {
        if (mb > peakMb) [peakMb, peakAtS] = [mb, (performance.now() - startedAt) / 1000];
      },
      () => undefined,
    );
  }, 1000);
  const cpuS = () => {
    const now = ticks();
    return now === undefined || firstTicks === undefined ? undefined : (now - firstTicks) / CLOCK_TICKS_PER_S;
  };
  return {
    cpuS,
    groups: () => keyGroups(redis, prefix),
    async stop() {
      clearInterval(timer);
      try {
        const afterMb = await usedMemoryMb(redis);
        const groupsLeft = await keyGroups(redis, prefix);
        const keysLeft = groupsLeft.reduce((sum, g) => sum + g.keys, 0);
        return { beforeMb, peakMb: Math.max(peakMb, afterMb), peakAtS, afterMb, keysLeft, groupsLeft, cpuS: cpuS() };
      } finally {
        redis.disconnect();
      }
    },
  };
}
