import { embedRequestSchema, requestEmbedding } from '@docshelf/core';
import { Router } from 'express';
import type { ApiDeps } from '../api-deps';
import { requireAdmin } from '../http/auth';
import { parseInput } from '../http/validate';

export function embedRoutes(deps: ApiDeps): Router {
  const auth = { records: deps.records, sessionTtlMs: deps.config.sessionTtlMs };
  return Router().post('/api/embed', requireAdmin(auth), async (req, res) => {
    res.json(await requestEmbedding(deps, parseInput(embedRequestSchema, req.body)));
  });
}
