import {
  logIn,
  logOut,
  loginRequestSchema,
  SESSION_COOKIE,
  type SuccessResponse,
  type UserResponse,
} from '@docshelf/core';
import { parseCookie } from 'cookie';
import { Router, type CookieOptions } from 'express';
import type { ApiDeps } from '../api-deps';
import { authDeps, principalOf, requireSession } from '../http/auth';
import type { RateLimits } from '../http/rate-limits';
import { parseInput } from '../http/validate';

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
