import { createHttpMetrics, registerQueueGauge, Registry } from '@docshelf/observability';
import express, { type Express } from 'express';
import type { ApiDeps } from './api-deps';
import { errorHandler, notFoundHandler, requireJsonBody } from './http/errors';
import { createRateLimits } from './http/rate-limits';
import { limitRequestUrl } from './http/request-limits';
import { requestLog } from './http/request-log';
import { requireSameOrigin } from './http/same-origin';
import { securityHeaders } from './http/security-headers';
import { adminQueueRoutes } from './ops/admin-queues.route';
import { healthRoutes } from './ops/health.route';
import { recordHttpMetrics } from './ops/http-metrics.middleware';
import { metricsRoute } from './ops/metrics.route';
import { openApiRoutes } from './ops/openapi/openapi.route';
import { authRoutes } from './routes/auth.route';
import { crawlRoutes } from './routes/crawl.route';
import { embedRoutes } from './routes/embed.route';
import { ingestRoutes } from './routes/ingest.route';
import { jobRoutes } from './routes/jobs.route';
import { keyRoutes } from './routes/keys.route';
import { libraryRoutes } from './routes/libraries.route';
import { mcpRoutes } from './routes/mcp.route';
import { retrievalRoutes } from './routes/retrieval.route';
import { dashboardRoutes } from './web/dashboard.route';

export type { ApiDeps, QueueOps } from './api-deps';

/** The HTTP API without listening, so tests drive it in-process against real infrastructure. */
export function buildApp(appDeps: ApiDeps): Express {
  const registry = appDeps.metrics ?? new Registry();
  registerQueueGauge(registry, { queues: () => appDeps.queues.allQueues(), ping: (ms) => appDeps.queues.ping(ms) });

  const rateLimits = createRateLimits(appDeps.config.security, {
    redis: appDeps.rateLimitRedis,
    prefix: appDeps.config.redis.prefix,
  });
  const deps: ApiDeps = { ...appDeps, keyFailures: rateLimits.keyFailures };

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.config.http.trustProxy);
  app.use(requestLog(deps.logger));
  app.use(recordHttpMetrics(createHttpMetrics(registry)));
  app.use(healthRoutes(deps));
  app.use(metricsRoute(registry, { token: deps.config.metricsToken, public: deps.config.metricsPublic }));
  app.use(securityHeaders());
  app.use(limitRequestUrl(deps.config.limits));
  app.use(requireSameOrigin);
  app.use(openApiRoutes());
  app.use(adminQueueRoutes(deps));
  app.use(
    [
      '/api/ingest',
      '/api/ingest-url',
      '/api/ingest-git',
      '/api/crawl',
      '/api/refresh',
      '/api/embed',
      '/api/keys',
      '/api/auth',
      '/mcp',
    ],
    requireJsonBody,
  );
  app.use(express.json({ limit: deps.config.http.bodyLimit, strict: true }));
  app.use(authRoutes(deps, rateLimits));
  app.use(keyRoutes(deps));
  app.use(ingestRoutes(deps));
  app.use(embedRoutes(deps));
  app.use(crawlRoutes(deps));
  app.use(jobRoutes(deps));
  app.use(libraryRoutes(deps));
  app.use(retrievalRoutes(deps, rateLimits.retrieval));
  app.use(mcpRoutes(deps, rateLimits.retrieval));
  app.use(dashboardRoutes(deps.webDistDir));
  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
}
