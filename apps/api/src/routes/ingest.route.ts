import { ingestLibrary, ingestRequestSchema } from '@docshelf/core';
import { Router } from 'express';
import type { ApiDeps } from '../api-deps';
import { principalOf, requireAdmin } from '../http/auth';
import { jobModeOf, sendJobOutcome } from '../http/job-response';
import { parseInput } from '../http/validate';
import { submitDepsOf } from './submit-deps';

export function ingestRoutes(deps: ApiDeps): Router {
  const auth = { records: deps.records, sessionTtlMs: deps.config.sessionTtlMs };
  const ingestDeps = { ...submitDepsOf(deps), records: deps.records };
  return Router().post('/api/ingest', requireAdmin(auth), async (req, res) => {
    const body = parseInput(ingestRequestSchema, req.body);
    sendJobOutcome(res, await ingestLibrary(ingestDeps, body, principalOf(req).userId, jobModeOf(req)));
  });
}
