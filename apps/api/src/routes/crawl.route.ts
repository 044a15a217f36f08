import { crawlLibrary, crawlRequestSchema, ingestLibraryFromUrl, ingestUrlRequestSchema } from '@docshelf/core';
import { Router } from 'express';
import type { ApiDeps } from '../api-deps';
import { principalOf, requireAdmin, requireSession } from '../http/auth';
import { parseInput } from '../http/validate';

export function crawlRoutes(deps: ApiDeps): Router {
  const auth = { records: deps.records, sessionTtlMs: deps.config.sessionTtlMs };
  const crawlDeps = { records: deps.records, jobs: deps.jobs, crawlTimeoutMs: deps.config.crawl.waitTimeoutMs };
  return Router()
    .post('/api/crawl', requireAdmin(auth), async (req, res) => {
      const body = parseInput(crawlRequestSchema, req.body);
      res.json(await crawlLibrary(crawlDeps, body, principalOf(req).userId));
    })
    .post('/api/ingest-url', requireSession(auth), async (req, res) => {
      const body = parseInput(ingestUrlRequestSchema, req.body);
      res.json(await ingestLibraryFromUrl(crawlDeps, body, principalOf(req).userId));
    });
}
