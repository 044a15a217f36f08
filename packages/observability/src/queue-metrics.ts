import { Gauge, type Registry } from 'prom-client';

export const QUEUE_STATES = ['waiting', 'active', 'completed', 'failed', 'delayed'] as const;

/** What the gauge needs of a BullMQ Queue. */
export interface CountableQueue {
  name: string;
  getJobCounts(...types: string[]): Promise<Record<string, number>>;
}

interface QueueSource {
  queues: () => CountableQueue[];
  ping: (timeoutMs: number) => Promise<void>;
}

type Counts = readonly (readonly [string, Record<string, number>])[] | undefined;

/** Both gauges of one scrape read the same counts. */
const SCRAPE_REUSE_MS = 1_000;

/**
 * `queue_jobs{queue,state}`, read from Redis on every scrape. When Redis is unreachable the series are left out
 * (an absent series, not a false zero) and `queue_jobs_scrape_ok` is 0.
 */
export function registerQueueGauge(registry: Registry, source: QueueSource): void {
  const readCounts = reuseWithin(SCRAPE_REUSE_MS, () => readQueueCounts(source));
  new Gauge({
    name: 'queue_jobs',
    help: 'Jobs per queue and state (waiting, active, completed, failed, delayed) at scrape time',
    labelNames: ['queue', 'state'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const [queue, byState] of (await readCounts()) ?? []) {
        for (const state of QUEUE_STATES) this.set({ queue, state }, byState[state] ?? 0);
      }
    },
  });
  new Gauge({
    name: 'queue_jobs_scrape_ok',
    help: '1 when the queue counts could be read from Redis at scrape time',
    registers: [registry],
    async collect() {
      this.set((await readCounts()) ? 1 : 0);
    },
  });
}

async function readQueueCounts(source: QueueSource): Promise<Counts> {
  try {
    // Without a live connection BullMQ would wait for one instead of failing.
    await source.ping(1_000);
    return await Promise.all(
      source.queues().map(async (q) => [q.name, await q.getJobCounts(...QUEUE_STATES)] as const),
    );
  } catch {
    return undefined;
  }
}

function reuseWithin<T>(ms: number, read: () => Promise<T>): () => Promise<T> {
  let last: { at: number; value: Promise<T> } | undefined;
  return () => {
    if (!last || Date.now() - last.at > ms) last = { at: Date.now(), value: read() };
    return last.value;
  };
}
