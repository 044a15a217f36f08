import type { HttpMetrics } from '@docshelf/observability';
import type { RequestHandler } from 'express';
import { routeLabelOf } from './route-label';

/** Counts every answered request and observes its latency, by method, route pattern and status. */
export function recordHttpMetrics(metrics: HttpMetrics): RequestHandler {
  return (req, res, next) => {
    const stopTimer = metrics.duration.startTimer();
    res.on('finish', () => {
      const labels = { method: req.method, route: routeLabelOf(req), status: String(res.statusCode) };
      metrics.requests.inc(labels);
      stopTimer(labels);
    });
    next();
  };
}
