import { forbidden, SESSION_COOKIE } from '@docshelf/core';
import { parseCookie } from 'cookie';
import type { Request, RequestHandler } from 'express';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Cross-site request forgery guard. A state-changing request that a browser could send on its own — one carrying the
 * session cookie, or a login or logout — must come from this service's own pages: a `Sec-Fetch-Site: cross-site`
 * header or an `Origin` other than the service's own (scheme and Host, as the request reached it) is refused with
 * 403. Requests with an `Authorization` header (API keys) are not affected: browsers never add one by themselves.
 */
export const requireSameOrigin: RequestHandler = (req, _res, next) => {
  if (!STATE_CHANGING.has(req.method) || req.headers.authorization !== undefined) return next();
  const cookieAuthenticated = parseCookie(req.headers.cookie ?? '')[SESSION_COOKIE] !== undefined;
  if (!cookieAuthenticated && !req.path.startsWith('/api/auth/')) return next();
  if (req.headers['sec-fetch-site'] === 'cross-site') {
    throw forbidden('Cross-site request refused: state-changing requests with a session must come from this site');
  }
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== ownOrigin(req)) {
    throw forbidden(`Cross-origin request refused: Origin ${origin} is not this service (${ownOrigin(req)})`);
  }
  next();
};

function ownOrigin(req: Request): string {
  return `${req.protocol}://${req.get('host') ?? ''}`;
}
