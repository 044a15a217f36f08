import { logIn, logOut, loginRequestSchema, SESSION_COOKIE } from '@docshelf/core';
import { Router, type CookieOptions } from 'express';
import type { ApiDeps } from '../api-deps';
import { principalOf, requireSession } from '../http/auth';
import { readCookie } from '../http/cookies';
import { parseInput } from '../http/validate';

export function authRoutes(deps: ApiDeps): Router {
  const sessionDeps = { records: deps.records, sessionTtlMs: deps.config.sessionTtlMs };
  const cookie: CookieOptions = { httpOnly: true, sameSite: 'lax', path: '/' };

  return Router()
    .post('/api/auth/login', async (req, res) => {
      const credentials = parseInput(loginRequestSchema, req.body);
      const { user, token, expiresAt } = await logIn(sessionDeps, credentials);
      res.cookie(SESSION_COOKIE, token, { ...cookie, secure: req.secure, expires: expiresAt });
      res.json({ user });
    })
    .post('/api/auth/logout', async (req, res) => {
      const token = readCookie(req.headers.cookie, SESSION_COOKIE);
      if (token) await logOut(sessionDeps, token);
      res.clearCookie(SESSION_COOKIE, cookie);
      res.json({ success: true });
    })
    .get('/api/auth/session', requireSession(sessionDeps), (req, res) => {
      const principal = principalOf(req);
      res.json({ user: principal.kind === 'session' ? principal.user : null });
    });
}
