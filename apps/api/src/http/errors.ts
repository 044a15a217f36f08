import { randomUUID } from 'node:crypto';
import { AppError, type ErrorBody } from '@docshelf/core';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';

interface BodyParserError extends Error {
  type?: string;
  status?: number;
}

/** Errors raised by express.json before our code runs, mapped to the service's error codes. */
function fromBodyParser(error: BodyParserError): AppError | undefined {
  switch (error.type) {
    case 'entity.parse.failed':
      return new AppError('MALFORMED_JSON', 'Request body is not valid JSON', 400);
    case 'entity.too.large':
      return new AppError('PAYLOAD_TOO_LARGE', 'Request body exceeds the configured size limit (BODY_LIMIT)', 413);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError('UNSUPPORTED_ENCODING', error.message, 415);
    case 'request.aborted':
      return new AppError('REQUEST_ABORTED', 'Request was aborted by the client', 400);
    default:
      return undefined;
  }
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    const known = error instanceof AppError ? error : fromBodyParser(error as BodyParserError);
    if (known) {
      const body: ErrorBody = { error: known.message, code: known.code };
      if (known.details) body.details = known.details;
      if (known.options.jobId) body.jobId = known.options.jobId;
      if (known.options.retryAfterSeconds !== undefined)
        res.set('Retry-After', String(known.options.retryAfterSeconds));
      res.status(known.status).json(body);
      return;
    }
    const errorId = randomUUID();
    logger.error({ err: error, errorId, requestId: req.requestId }, 'unhandled request error');
    res
      .status(500)
      .json({ error: `Internal error (errorId ${errorId})`, code: 'INTERNAL', errorId } satisfies ErrorBody);
  };
}

export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(new AppError('NOT_FOUND', `No route for ${req.method} ${req.path}`, 404));
};

/** POST bodies must be JSON; anything else is a 415 rather than a confusing validation error. */
export const requireJsonBody: RequestHandler = (req, _res, next) => {
  const hasBody =
    req.headers['content-length'] !== '0' && (req.headers['content-length'] || req.headers['transfer-encoding']);
  if (hasBody && !req.is('application/json')) {
    next(new AppError('UNSUPPORTED_MEDIA_TYPE', 'Request body must be application/json', 415));
    return;
  }
  next();
};
