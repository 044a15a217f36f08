import { Counter, Histogram, type Registry } from 'prom-client';

export interface HttpMetrics {
  requests: Counter<'method' | 'route' | 'status'>;
  duration: Histogram<'method' | 'route' | 'status'>;
}

/** Labelled by route pattern (`/api/libraries/*id`), never the raw path, so ids and keys stay out and cardinality stays low. */
export function createHttpMetrics(registry: Registry): HttpMetrics {
  const labelNames = ['method', 'route', 'status'] as const;
  return {
    requests: new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered',
      labelNames,
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from request to response',
      labelNames,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers: [registry],
    }),
  };
}
