import { type JobMode, type Submitted } from '@docshelf/core';
import type { Request, Response } from 'express';
import { z } from 'zod';
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

/** `Prefer: respond-async` asks for the job id at once (202); otherwise the request waits for the job, up to `timeoutMs`. */
export function jobModeOf(req: Request, timeoutMs?: number): JobMode {
  const respondAsync = parseInput(preferHeaderSchema, req.headers.prefer ?? '', 'Prefer header');
  return respondAsync ? { async: true } : { async: false, timeoutMs };
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
