import { refuseMetricsScrape, renderMetrics, type MetricsAccess, type Registry } from '@docshelf/observability';
import { Router } from 'express';
import { type Endpoint } from './openapi/endpoint';

/** Prometheus scrape endpoint: METRICS_TOKEN as a bearer token, or open with METRICS_PUBLIC=true and no token. */
export function metricsRoute(registry: Registry, access: MetricsAccess): Router {
  return Router().get('/metrics', async (req, res) => {
    const refused = refuseMetricsScrape(req.headers.authorization, access);
    if (refused) {
      res.status(refused.status).json(refused.body);
      return;
    }
    const { contentType, body } = await renderMetrics(registry);
    res.type(contentType).send(body);
  });
}

/** The OpenAPI entries of these routes (ops/openapi/endpoints.ts gathers every route file's). */
export const metricsEndpoints: Endpoint[] = [
  {
    method: 'get',
    path: '/metrics',
    operationId: 'readMetrics',
    tag: 'Operations',
    access: 'metrics',
    summary: 'Prometheus metrics',
    description:
      'HTTP request counts and latency by route and status, jobs per queue and state, Node process metrics. Needs `Authorization: Bearer <METRICS_TOKEN>` (401 without it); without a METRICS_TOKEN it is closed (403) unless METRICS_PUBLIC=true.',
    ok: { description: 'Prometheus text exposition format', contentType: 'text/plain' },
    errors: [401],
  },
];
