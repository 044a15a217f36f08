import { ingestLibrary, ingestRequestSchema } from '@docshelf/core';
import { Router } from 'express';
import type { ApiDeps } from '../api-deps';
import { authDeps, principalOf, requireAdmin } from '../http/auth';
import { jobModeOf, sendJobOutcome } from '../http/job-response';
import { checkBodyLimits } from '../http/request-limits';
import { parseInput } from '../http/validate';
import { submitDepsOf } from './submit-deps';

export function ingestRoutes(deps: ApiDeps): Router {
  const auth = authDeps(deps);
  const ingestDeps = { ...submitDepsOf(deps), records: deps.records };
  return Router().post('/api/ingest', requireAdmin(auth), async (req, res) => {
    const body = parseInput(ingestRequestSchema, req.body);
    checkBodyLimits(deps.config.limits, body);
    sendJobOutcome(res, await ingestLibrary(ingestDeps, body, principalOf(req).userId, jobModeOf(req)));
  });
}
