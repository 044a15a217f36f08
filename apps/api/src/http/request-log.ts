import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { routeLabelOf } from '../ops/route-label';

/** One log line per request; the route pattern, not the raw path, so ids and keys stay out of the log. */
export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    req.requestId = (req.headers['x-request-id'] as string | undefined)?.slice(0, 64) ?? randomUUID();
    res.setHeader('x-request-id', req.requestId);
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const route = routeLabelOf(req);
      logger.info(
        { requestId: req.requestId, method: req.method, route, status: res.statusCode, ms: Math.round(ms * 10) / 10 },
        'request',
      );
    });
    next();
  };
}
