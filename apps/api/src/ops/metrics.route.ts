import { refuseMetricsScrape, renderMetrics, type MetricsAccess, type Registry } from '@docshelf/observability';
import { Router } from 'express';

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
