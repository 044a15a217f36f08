import type { Config } from '@docshelf/config';
import { rateLimited } from '@docshelf/core';
import type { Request, RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

export interface RateLimits {
  /**
   * Counts one login attempt against the account and the client address, and refuses it (429 RATE_LIMITED with
   * Retry-After) when either has used up its attempts in the window. Counted before the password is checked, so
   * simultaneous attempts on several replicas cannot overshoot the limit.
   */
  beginLogin(email: string, ip: string): Promise<void>;
  /** A successful login clears the account's count and gives the address its attempt back. */
  loginSucceeded(email: string, ip: string): Promise<void>;
  /** Search, context, chunks and MCP: requests per key (per user for a session, per address without a credential). */
  retrieval: RequestHandler;
  /** Wrong API keys per client address. */
  keyFailures: KeyFailureGuard;
}

/**
 * Wrong API keys sent from one client address within the window: past the limit every key from there, right or
 * wrong, is refused with 429 until the window ends, so guessing keys tells nothing. Sessions are not affected.
 */
export interface KeyFailureGuard {
  /** Throws 429 RATE_LIMITED (with Retry-After) when the address has used up its wrong keys. */
  check(ip: string): Promise<void>;
  /** Counts one wrong key; throws 429 when it was one more than allowed. */
  failed(ip: string): Promise<void>;
}

type Security = Config['security'];

/**
 * Counters in Redis, shared by every API replica (rate-limiter-flexible). While Redis is unreachable each process
 * counts in memory on its own (the insurance limiter), so an outage loosens the limits but never fails a request.
 */
export function createRateLimits(security: Security, store: { redis?: Redis; prefix: string }): RateLimits {
  const limiter = (name: string, points: number, windowMs: number): RateLimiterAbstract => {
    const duration = Math.max(1, Math.ceil(windowMs / 1_000));
    const memory = new RateLimiterMemory({ keyPrefix: name, points, duration });
    if (!store.redis) return memory;
    return new RateLimiterRedis({
      storeClient: store.redis,
      keyPrefix: `${store.prefix}:ratelimit:${name}`,
      points,
      duration,
      insuranceLimiter: memory,
    });
  };
  const { login, retrieval } = security;
  const loginAccount = limiter('login-account', login.perAccount, login.windowMs);
  const loginIp = limiter('login-ip', login.perIp, login.windowMs);
  const perKey = retrieval.perKey > 0 ? limiter('retrieval-key', retrieval.perKey, retrieval.windowMs) : undefined;
  const perIp = retrieval.perIp > 0 ? limiter('retrieval-ip', retrieval.perIp, retrieval.windowMs) : undefined;
  const account = (email: string) => email.trim().toLowerCase();
  const { keyFailures } = security;
  const keyFailuresIp =
    keyFailures.perIp > 0 ? limiter('key-failures-ip', keyFailures.perIp, keyFailures.windowMs) : undefined;
  const tooManyKeyFailures = (msBeforeNext: number) =>
    rateLimited('Too many wrong API keys from this address; try again later', msBeforeNext / 1_000);

  return {
    async beginLogin(email, ip) {
      const results = await Promise.allSettled([loginAccount.consume(account(email)), loginIp.consume(ip)]);
      const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
      if (refused.length === 0) return;
      const wait = Math.max(...refused.map((r) => (r instanceof RateLimiterRes ? r.msBeforeNext : login.windowMs)));
      throw rateLimited('Too many login attempts; try again later', wait / 1_000);
    },
    async loginSucceeded(email, ip) {
      await Promise.allSettled([loginAccount.delete(account(email)), loginIp.reward(ip, 1)]);
    },
    keyFailures: {
      async check(ip) {
        const used = await keyFailuresIp?.get(ip);
        if (used && used.consumedPoints > keyFailures.perIp) throw tooManyKeyFailures(used.msBeforeNext);
      },
      async failed(ip) {
        try {
          await keyFailuresIp?.consume(ip);
        } catch (error) {
          if (!(error instanceof RateLimiterRes)) throw error;
          throw tooManyKeyFailures(error.msBeforeNext);
        }
      },
    },
    retrieval: async (req, _res, next) => {
      const who = clientOf(req);
      const counter = who.kind === 'anonymous' ? perIp : perKey;
      if (!counter) return next();
      try {
        await counter.consume(who.id);
      } catch (error) {
        if (!(error instanceof RateLimiterRes)) throw error;
        throw rateLimited(
          who.kind === 'anonymous'
            ? 'Too many requests from this address; try again later'
            : 'Too many requests with this credential; try again later',
          error.msBeforeNext / 1_000,
        );
      }
      next();
    },
  };
}

function clientOf(req: Request): { kind: 'key' | 'user' | 'anonymous'; id: string } {
  const principal = req.principal;
  if (principal?.kind === 'key') return { kind: 'key', id: `key:${principal.key.id}` };
  if (principal?.kind === 'session') return { kind: 'user', id: `user:${principal.userId}` };
  return { kind: 'anonymous', id: req.ip ?? 'unknown' };
}
