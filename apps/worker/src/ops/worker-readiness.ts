import type { RecordDatabase } from '@docshelf/core';
import type { ReadinessCheck } from '@docshelf/observability';
import type { RunningWorkers } from '../worker';

/** Redis and the record store reachable, every queue's worker running, and not shutting down. */
export function workerReadinessChecks(deps: {
  redis: { ping(timeoutMs?: number): Promise<void> };
  records: Pick<RecordDatabase, 'ping'>;
  running: RunningWorkers;
  isStopping: () => boolean;
}): Record<string, ReadinessCheck> {
  return {
    redis: () => deps.redis.ping(1_000),
    records: () => deps.records.ping(),
    workers: () => {
      if (deps.isStopping())
        return Promise.reject(new Error('shutting down: finishing active jobs, taking no new ones'));
      const stopped = deps.running
        .status()
        .filter((s) => !s.running)
        .map((s) => s.queue);
      if (stopped.length > 0) return Promise.reject(new Error(`not running: ${stopped.join(', ')}`));
      return Promise.resolve();
    },
  };
}
