import { embedRequestSchema, requestEmbedding } from '@docshelf/core';
import { Router } from 'express';
import type { ApiDeps } from '../api-deps';
import { authDeps, requireAdmin } from '../http/auth';
import { jobModeOf, sendJobOutcome } from '../http/job-response';
import { checkBodyLimits } from '../http/request-limits';
import { parseInput } from '../http/validate';
import { submitDepsOf } from './submit-deps';

export function embedRoutes(deps: ApiDeps): Router {
  const auth = authDeps(deps);
  const embedDeps = { ...submitDepsOf(deps), records: deps.records };
  return Router().post('/api/embed', requireAdmin(auth), async (req, res) => {
    const body = parseInput(embedRequestSchema, req.body);
    checkBodyLimits(deps.config.limits, body);
    sendJobOutcome(res, await requestEmbedding(embedDeps, body, jobModeOf(req)));
  });
}
