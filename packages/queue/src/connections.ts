import type { RedisOptions } from 'bullmq';

/** Producers fail fast when Redis is down, so the API can answer 503 instead of hanging. */
export function producerConnection(url: string): RedisOptions {
  return { url, enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2_000 };
}

/** Workers and event listeners keep retrying forever: a Redis restart must not kill them. */
export function consumerConnection(url: string): RedisOptions {
  return { url, maxRetriesPerRequest: null, enableOfflineQueue: true };
}
