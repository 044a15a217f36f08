import { crawlLibrary, crawlRequestSchema, ingestLibraryFromUrl, ingestUrlRequestSchema } from '@docshelf/core';
import { Router } from 'express';
import type { ApiDeps } from '../api-deps';
import { authDeps, principalOf, requireAdmin, requireSession } from '../http/auth';
import { jobModeOf, sendJobOutcome } from '../http/job-response';
import { checkBodyLimits, checkCrawlPages } from '../http/request-limits';
import { parseInput } from '../http/validate';
import { submitDepsOf } from './submit-deps';

export function crawlRoutes(deps: ApiDeps): Router {
  const auth = authDeps(deps);
  const submitDeps = submitDepsOf(deps);
  const waitMs = deps.config.crawl.waitTimeoutMs;
  return Router()
    .post('/api/crawl', requireAdmin(auth), async (req, res) => {
      const body = parseInput(crawlRequestSchema, req.body);
      checkBodyLimits(deps.config.limits, body);
      checkCrawlPages(deps.config.crawl.maxPages, body);
      sendJobOutcome(res, await crawlLibrary(submitDeps, body, principalOf(req).userId, jobModeOf(req, waitMs)));
    })
    .post('/api/ingest-url', requireSession(auth), async (req, res) => {
      const body = parseInput(ingestUrlRequestSchema, req.body);
      checkBodyLimits(deps.config.limits, body);
      sendJobOutcome(
        res,
        await ingestLibraryFromUrl(submitDeps, body, principalOf(req).userId, jobModeOf(req, waitMs)),
      );
    });
}
