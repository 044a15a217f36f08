import {
  evaluateReadiness,
  type HealthBody,
  type ReadinessCheck,
  healthBodySchema,
  readinessBodySchema,
} from '@docshelf/observability';
import { Router } from 'express';
import type { ApiDeps } from '../api-deps';
import { type Endpoint } from './openapi/endpoint';

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

/** The OpenAPI entries of these routes (ops/openapi/endpoints.ts gathers every route file's). */
export const healthEndpoints: Endpoint[] = [
  {
    method: 'get',
    path: '/healthz',
    operationId: 'checkHealth',
    tag: 'Operations',
    access: 'public',
    summary: 'Liveness: the process answers',
    ok: { schema: healthBodySchema, description: 'Alive' },
    errors: [],
  },
  {
    method: 'get',
    path: '/readyz',
    operationId: 'checkReadiness',
    tag: 'Operations',
    access: 'public',
    summary: 'Readiness: Redis and the record store are reachable',
    description: 'Answers 503 with each failing check named (and `shutdown` while the process is stopping).',
    ok: { schema: readinessBodySchema, description: 'Ready' },
    errors: [503],
  },
];
