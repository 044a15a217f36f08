import { createHash } from 'node:crypto';
import { type Idempotency, type JobMode, type Submitted } from '@docshelf/core';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { principalOf, startedByOf } from './auth';
import { parseInput } from './validate';

/** RFC 7240 preferences, e.g. `Prefer: respond-async, wait=10`; only respond-async changes anything here. */
const preferHeaderSchema = z
  .string()
  .max(1_024, 'Prefer header is too long')
  .transform((header) =>
    header
      .split(',')
      .map((preference) => preference.split(';')[0]!.split('=')[0]!.trim().toLowerCase())
      .includes('respond-async'),
  );

/** Stripe's convention: up to 255 visible ASCII characters, e.g. a UUID the client made for this request. */
const idempotencyKeySchema = z
  .string()
  .regex(/^[\x21-\x7e]{1,255}$/, 'Idempotency-Key must be 1 to 255 visible ASCII characters');

/**
 * `Prefer: respond-async` asks for the job id at once (202); otherwise the request waits for the job, up to
 * `timeoutMs`. An `Idempotency-Key` makes a repeat of the request (same caller, path and body) within 24 hours
 * answer as the first did, from the first one's job.
 */
export function jobModeOf(req: Request, timeoutMs?: number): JobMode {
  const respondAsync = parseInput(preferHeaderSchema, req.headers.prefer ?? '', 'Prefer header');
  const header = req.headers['idempotency-key'];
  const key = header === undefined ? undefined : parseInput(idempotencyKeySchema, header, 'Idempotency-Key header');
  const idempotency: Idempotency | undefined = key
    ? {
        key: `${principalOf(req).userId}:${key}`,
        requestHash: createHash('sha256')
          .update(`${req.method} ${req.path}\n${JSON.stringify(req.body ?? null)}`)
          .digest('hex'),
      }
    : undefined;
  const startedBy = startedByOf(principalOf(req));
  const mode: JobMode = respondAsync ? { async: true, startedBy } : { async: false, timeoutMs, startedBy };
  return idempotency ? { ...mode, idempotency } : mode;
}

/** 202 with the job and its Location, or 200 with the body the job produced. */
export function sendJobOutcome<R>(res: Response, submitted: Submitted<R>): void {
  if ('accepted' in submitted) {
    res.status(202).location(submitted.accepted.statusUrl).setHeader('preference-applied', 'respond-async');
    res.json(submitted.accepted);
    return;
  }
  res.json(submitted.result);
}
