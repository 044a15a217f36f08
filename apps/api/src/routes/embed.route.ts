import { embedRequestSchema, requestEmbedding } from '@docshelf/core';
import { Router } from 'express';
import type { ApiDeps } from '../api-deps';
import { requireAdmin } from '../http/auth';
import { jobModeOf, sendJobOutcome } from '../http/job-response';
import { parseInput } from '../http/validate';
import { submitDepsOf } from './submit-deps';

export function embedRoutes(deps: ApiDeps): Router {
  const auth = { records: deps.records, sessionTtlMs: deps.config.sessionTtlMs };
  const embedDeps = { ...submitDepsOf(deps), records: deps.records };
  return Router().post('/api/embed', requireAdmin(auth), async (req, res) => {
    sendJobOutcome(res, await requestEmbedding(embedDeps, parseInput(embedRequestSchema, req.body), jobModeOf(req)));
  });
}
