import { ingestLibrary, ingestRequestSchema } from '@docshelf/core';
import { Router } from 'express';
import type { ApiDeps } from '../api-deps';
import { principalOf, requireAdmin } from '../http/auth';
import { parseInput } from '../http/validate';

export function ingestRoutes(deps: ApiDeps): Router {
  const auth = { records: deps.records, sessionTtlMs: deps.config.sessionTtlMs };
  return Router().post('/api/ingest', requireAdmin(auth), async (req, res) => {
    const body = parseInput(ingestRequestSchema, req.body);
    res.json(await ingestLibrary(deps, body, principalOf(req).userId));
  });
}
