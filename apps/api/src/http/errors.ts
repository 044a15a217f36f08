import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { AppError, type ErrorBody, type ErrorCode } from '@docshelf/core';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';

interface BodyParserError extends Error {
  type?: string;
  status?: number;
}

/** What Express, its body parsers and http-errors put on the errors they raise. */
interface HttpLibraryError {
  status?: unknown;
  statusCode?: unknown;
  expose?: unknown;
  message?: unknown;
}

/** Codes for the 4xx statuses other libraries raise, matching the ones the service's own errors use. */
const CODE_OF_STATUS: Record<number, ErrorCode> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  406: 'NOT_ACCEPTABLE',
  413: 'PAYLOAD_TOO_LARGE',
  414: 'URL_TOO_LONG',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  416: 'RANGE_NOT_SATISFIABLE',
  429: 'RATE_LIMITED',
};

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

/**
 * An error from Express (a path parameter that does not percent-decode), a body parser or another library in the
 * request path that says it is the client's fault (a 4xx `status` or `statusCode`) keeps that status. Its message is
 * passed on only when the library marks it safe to show (`expose`) or it is a decoding failure of the request's URL.
 */
function fromHttpLibrary(error: unknown): AppError | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as HttpLibraryError;
  const status = [e.status, e.statusCode].find((s): s is number => Number.isInteger(s));
  if (status === undefined || status < 400 || status > 499) return undefined;
  const text = typeof e.message === 'string' && e.message !== '' ? e.message : undefined;
  const showable = e.expose === true || error instanceof URIError;
  const message = (showable ? text : undefined) ?? STATUS_CODES[status] ?? 'Client error';
  const code = CODE_OF_STATUS[status] ?? (status === 400 ? 'BAD_REQUEST' : `HTTP_${status}`);
  return new AppError(code, error instanceof URIError ? `Malformed URL: ${message}` : message, status, {
    retryable: status === 429,
  });
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    const known =
      error instanceof AppError ? error : (fromBodyParser(error as BodyParserError) ?? fromHttpLibrary(error));
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
