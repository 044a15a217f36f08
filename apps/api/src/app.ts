import express, { type Express } from 'express';
import type { ApiDeps } from './api-deps';
import { errorHandler, notFoundHandler, requireJsonBody } from './http/errors';
import { requestLog } from './http/request-log';
import { authRoutes } from './routes/auth.route';
import { embedRoutes } from './routes/embed.route';
import { ingestRoutes } from './routes/ingest.route';
import { keyRoutes } from './routes/keys.route';
import { libraryRoutes } from './routes/libraries.route';

export type { ApiDeps } from './api-deps';

/** The HTTP API without listening, so tests drive it in-process against real infrastructure. */
export function buildApp(deps: ApiDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.config.http.trustProxy);
  app.use(requestLog(deps.logger));
  app.use(['/api/ingest', '/api/embed', '/api/keys', '/api/auth'], requireJsonBody);
  app.use(express.json({ limit: deps.config.http.bodyLimit, strict: true }));
  app.use(authRoutes(deps));
  app.use(keyRoutes(deps));
  app.use(ingestRoutes(deps));
  app.use(embedRoutes(deps));
  app.use(libraryRoutes(deps));
  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
}
