import { evaluateReadiness, type HealthBody, type ReadinessCheck } from '@docshelf/observability';
import { Router } from 'express';
import type { ApiDeps } from '../api-deps';

const REDIS_PING_TIMEOUT_MS = 1_000;

/** Liveness says the process answers; readiness says it can do its work (Redis and the record store reachable). */
export function healthRoutes(deps: Pick<ApiDeps, 'queues' | 'records' | 'isStopping'>): Router {
  const checks: Record<string, ReadinessCheck> = {
    redis: () => deps.queues.ping(REDIS_PING_TIMEOUT_MS),
    records: () => deps.records.ping(),
  };
  return Router()
    .get('/healthz', (_req, res) => {
      res.json({ status: 'ok' } satisfies HealthBody);
    })
    .get('/readyz', async (_req, res) => {
      const stopping = deps.isStopping?.() ?? false;
      const report = await evaluateReadiness(stopping ? { ...checks, shutdown: rejectStopping } : checks);
      res.status(report.ready ? 200 : 503).json(report.body);
    });
}

function rejectStopping(): Promise<void> {
  return Promise.reject(new Error('the process is shutting down'));
}
