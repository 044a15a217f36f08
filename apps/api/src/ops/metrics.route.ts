import { isMetricsScrapeAllowed, renderMetrics, type Registry } from '@docshelf/observability';
import { Router } from 'express';

/** Prometheus scrape endpoint; with METRICS_TOKEN set it needs that bearer token. */
export function metricsRoute(registry: Registry, token: string | undefined): Router {
  return Router().get('/metrics', async (req, res) => {
    if (!isMetricsScrapeAllowed(req.headers.authorization, token)) {
      res
        .status(401)
        .json({ error: 'Send the METRICS_TOKEN as "Authorization: Bearer <token>"', code: 'UNAUTHORIZED' });
      return;
    }
    const { contentType, body } = await renderMetrics(registry);
    res.type(contentType).send(body);
  });
}
