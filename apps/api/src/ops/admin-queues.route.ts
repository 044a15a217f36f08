import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { AppError, serviceUnavailable } from '@docshelf/core';
import { Router, type Request, type RequestHandler } from 'express';
import type { ApiDeps } from '../api-deps';
import { authDeps, requireSession, type AuthDeps } from '../http/auth';
import { securityHeaders } from '../http/security-headers';
import { ADMIN_LOGIN_SCRIPT, ADMIN_LOGIN_SCRIPT_PATH, renderAdminLoginPage } from './admin-login-page';
import { type Endpoint } from './openapi/endpoint';

export const ADMIN_QUEUES_PATH = '/admin/queues';

/** Bull Board over every Docshelf queue, for a logged-in dashboard session only. */
export function adminQueueRoutes(deps: Pick<ApiDeps, 'queues' | 'accounts' | 'config'>): Router {
  const board = new ExpressAdapter().setBasePath(ADMIN_QUEUES_PATH);
  createBullBoard({
    queues: deps.queues.allQueues().map((queue) => new BullMQAdapter(queue)),
    serverAdapter: board,
    options: { uiConfig: { boardTitle: 'Docshelf queues' } },
  });
  const auth = authDeps(deps);
  return Router()
    .get(ADMIN_LOGIN_SCRIPT_PATH, (_req, res) => {
      res.type('text/javascript').set('Cache-Control', 'no-cache').send(ADMIN_LOGIN_SCRIPT);
    })
    .use(
      ADMIN_QUEUES_PATH,
      // Bull Board's page links its Google font; nothing else it loads comes from elsewhere.
      securityHeaders({ styleSrc: ['https://fonts.googleapis.com'], fontSrc: ['https://fonts.gstatic.com'] }),
      requireDashboardSession(auth),
      requireRedis(deps.queues),
      board.getRouter() as RequestHandler,
    );
}

/**
 * Like requireSession (an API key or no session is a 401), but a browser gets a login page with that 401
 * instead of JSON; API clients still get `{error, code}`.
 */
function requireDashboardSession(auth: AuthDeps): RequestHandler {
  const session = requireSession(auth);
  return async (req, res, next) => {
    try {
      await session(req, res, () => undefined);
    } catch (error) {
      if (error instanceof AppError && error.status === 401 && prefersHtml(req)) {
        res.status(401).type('html').send(renderAdminLoginPage(error.message));
        return;
      }
      throw error;
    }
    next();
  };
}

/** BullMQ waits for a connection instead of failing; the dashboard answers 503 at once when Redis is away. */
function requireRedis(queues: ApiDeps['queues']): RequestHandler {
  return async (_req, _res, next) => {
    try {
      await queues.ping(1_000);
    } catch (error) {
      throw serviceUnavailable('QUEUE_UNAVAILABLE', `The job queue is unavailable: ${(error as Error).message}`);
    }
    next();
  };
}

function prefersHtml(req: Request): boolean {
  return req.accepts(['json', 'html']) === 'html';
}

/** The OpenAPI entries of these routes (ops/openapi/endpoints.ts gathers every route file's). */
export const adminQueueEndpoints: Endpoint[] = [
  {
    method: 'get',
    path: '/admin/queues',
    operationId: 'openQueueBoard',
    tag: 'Operations',
    access: 'session',
    summary: 'Bull Board: the job queues',
    description: 'A browser without a session gets a 401 page with a login form; API keys are refused (401).',
    ok: { description: 'The dashboard', contentType: 'text/html' },
    errors: [401, 503],
  },
];
