import {
  authenticateApiKey,
  forbidden,
  resolveSession,
  SESSION_COOKIE,
  unauthorized,
  type ApiKeyRecord,
  type AccountStore,
  type User,
} from '@docshelf/core';
import { parseCookie } from 'cookie';
import type { Request, RequestHandler } from 'express';
import type { KeyFailureGuard } from './rate-limits';

export type Principal =
  { kind: 'session'; userId: string; user: User; token: string } | { kind: 'key'; userId: string; key: ApiKeyRecord };

declare module 'express-serve-static-core' {
  interface Request {
    requestId: string;
    principal?: Principal;
  }
}

export interface AuthDeps {
  accounts: AccountStore;
  sessionTtlMs: number;
  sessionIdleMs?: number;
  /** Throttles wrong API keys per client address; absent = unlimited. */
  keyFailures?: KeyFailureGuard;
}

/** What the credential checks need from the API's dependencies. */
export function authDeps(deps: {
  accounts: AccountStore;
  config: { sessionTtlMs: number; security?: { sessionIdleMs: number } };
  keyFailures?: KeyFailureGuard;
}): AuthDeps {
  return {
    accounts: deps.accounts,
    sessionTtlMs: deps.config.sessionTtlMs,
    sessionIdleMs: deps.config.security?.sessionIdleMs,
    keyFailures: deps.keyFailures,
  };
}

/** What a request presents: a bearer key wins over a cookie, so a key can never borrow a browser's session. */
async function identify(deps: AuthDeps, req: Request): Promise<Principal | null> {
  const header = req.headers.authorization;
  if (header !== undefined) {
    const ip = req.ip ?? 'unknown';
    await deps.keyFailures?.check(ip);
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const key = match ? await authenticateApiKey(deps, match[1]!) : null;
    if (!key) {
      await deps.keyFailures?.failed(ip);
      throw unauthorized(match ? 'Invalid or revoked API key' : 'Authorization header must be "Bearer <API key>"');
    }
    return { kind: 'key', userId: key.userId, key };
  }
  const token = parseCookie(req.headers.cookie ?? '')[SESSION_COOKIE];
  if (!token) return null;
  const user = await resolveSession(deps, token);
  return user ? { kind: 'session', userId: user.id, user, token } : null;
}

/** Dashboard session only: API keys cannot manage API keys or sessions (401). */
export function requireSession(deps: AuthDeps): RequestHandler {
  return async (req, _res, next) => {
    if (req.headers.authorization !== undefined) {
      throw unauthorized('This endpoint needs a dashboard session; API keys are not accepted here');
    }
    const principal = await identify(deps, req);
    if (!principal) throw unauthorized('Log in first: a dashboard session is required');
    req.principal = principal;
    next();
  };
}

/** An admin API key or a session; a read key is known but not allowed (403). */
export function requireAdmin(deps: AuthDeps): RequestHandler {
  return async (req, _res, next) => {
    const principal = await identify(deps, req);
    if (!principal) throw unauthorized('An admin API key (Authorization: Bearer) or a dashboard session is required');
    if (principal.kind === 'key' && principal.key.permissions !== 'admin') {
      throw forbidden('This API key has read permission; this endpoint needs an admin key');
    }
    req.principal = principal;
    next();
  };
}

/** Any API key (read or admin) or a session; with `open` (PUBLIC_SEARCH) no credential at all, though one sent must be valid. */
export function requireReader(deps: AuthDeps, open: boolean): RequestHandler {
  return async (req, _res, next) => {
    const principal = await identify(deps, req);
    if (!principal && !open) {
      throw unauthorized('A read or admin API key (Authorization: Bearer) or a dashboard session is required');
    }
    if (principal) req.principal = principal;
    next();
  };
}

export function principalOf(req: Request): Principal {
  if (!req.principal) throw unauthorized();
  return req.principal;
}

/** Who starts a job, as recorded on it: the API key, or the dashboard user. */
export function startedByOf(principal: Principal): string {
  return principal.kind === 'key' ? `key:${principal.key.id}` : `user:${principal.userId}`;
}

/** Whose jobs a request sees: an API key only those it started, a session every job. */
export function jobViewerOf(req: Request): { startedBy?: string } {
  const principal = principalOf(req);
  return principal.kind === 'key' ? { startedBy: startedByOf(principal) } : {};
}
