import {
  logIn,
  logOut,
  loginRequestSchema,
  SESSION_COOKIE,
  type SuccessResponse,
  type UserResponse,
  successSchema,
  userResponseSchema,
} from '@docshelf/core';
import { parseCookie } from 'cookie';
import { Router, type CookieOptions } from 'express';
import type { ApiDeps } from '../api-deps';
import { authDeps, principalOf, requireSession } from '../http/auth';
import type { RateLimits } from '../http/rate-limits';
import { parseInput } from '../http/validate';
import { type Endpoint } from '../ops/openapi/endpoint';

export function authRoutes(deps: ApiDeps, limits: Pick<RateLimits, 'beginLogin' | 'loginSucceeded'>): Router {
  const sessionDeps = authDeps(deps);
  const cookie: CookieOptions = { httpOnly: true, sameSite: 'lax', path: '/' };

  return Router()
    .post('/api/auth/login', async (req, res) => {
      const credentials = parseInput(loginRequestSchema, req.body);
      const ip = req.ip ?? 'unknown';
      await limits.beginLogin(credentials.email, ip);
      // A fresh token every time; a session cookie sent along is destroyed, never promoted.
      const previous = parseCookie(req.headers.cookie ?? '')[SESSION_COOKIE];
      const { user, token, expiresAt } = await logIn(sessionDeps, credentials, previous);
      await limits.loginSucceeded(credentials.email, ip);
      res.cookie(SESSION_COOKIE, token, { ...cookie, secure: req.secure, expires: expiresAt });
      res.json({ user } satisfies UserResponse);
    })
    .post('/api/auth/logout', async (req, res) => {
      const token = parseCookie(req.headers.cookie ?? '')[SESSION_COOKIE];
      if (token) await logOut(sessionDeps, token);
      res.clearCookie(SESSION_COOKIE, cookie);
      res.json({ success: true } satisfies SuccessResponse);
    })
    .get('/api/auth/session', requireSession(sessionDeps), (req, res) => {
      const principal = principalOf(req);
      res.json({ user: principal.kind === 'session' ? principal.user : null });
    });
}

/** The OpenAPI entries of these routes (ops/openapi/endpoints.ts gathers every route file's). */
export const authEndpoints: Endpoint[] = [
  {
    method: 'post',
    path: '/api/auth/login',
    operationId: 'logIn',
    tag: 'Dashboard session',
    access: 'public',
    summary: 'Log in to the dashboard',
    description:
      'Sets the `docshelf_session` cookie (HttpOnly, SameSite=Lax, Secure over https) with a new session id. Attempts are limited per account and per address (429 with Retry-After); an unknown user and a wrong password answer alike.',
    body: loginRequestSchema,
    ok: { schema: userResponseSchema, description: 'Logged in' },
    errors: [400, 401, 403, 415, 429, 500],
  },
  {
    method: 'post',
    path: '/api/auth/logout',
    operationId: 'logOut',
    tag: 'Dashboard session',
    access: 'public',
    summary: 'End the dashboard session',
    ok: { schema: successSchema, description: 'Logged out (also when there was no session)' },
    errors: [500],
  },
  {
    method: 'get',
    path: '/api/auth/session',
    operationId: 'getSession',
    tag: 'Dashboard session',
    access: 'session',
    summary: 'The logged-in user',
    ok: { schema: userResponseSchema, description: "The session's user" },
    errors: [401],
  },
];
