import {
  crawlLibrary,
  crawlRequestSchema,
  ingestLibraryFromUrl,
  ingestUrlRequestSchema,
  crawlResponseSchema,
  ingestGitRequestSchema,
  ingestGitResponseSchema,
  ingestLibraryFromGit,
  ingestResponseSchema,
} from '@docshelf/core';
import { Router } from 'express';
import type { ApiDeps } from '../api-deps';
import { authDeps, principalOf, requireAdmin, requireSession } from '../http/auth';
import { jobModeOf, sendJobOutcome } from '../http/job-response';
import { checkBodyLimits, checkCrawlPages } from '../http/request-limits';
import { parseInput } from '../http/validate';
import { submitDepsOf } from './submit-deps';
import { JOB_ERRORS, RUNS_AS_JOB, type Endpoint } from '../ops/openapi/endpoint';

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
    })
    .post('/api/ingest-git', requireAdmin(auth), async (req, res) => {
      const body = parseInput(ingestGitRequestSchema, req.body);
      checkBodyLimits(deps.config.limits, body);
      sendJobOutcome(
        res,
        await ingestLibraryFromGit(submitDeps, body, principalOf(req).userId, jobModeOf(req, waitMs)),
      );
    });
}

/** The OpenAPI entries of these routes (ops/openapi/endpoints.ts gathers every route file's). */
export const crawlEndpoints: Endpoint[] = [
  {
    method: 'post',
    path: '/api/crawl',
    tag: 'Ingestion',
    access: 'admin',
    summary: 'Crawl a documentation site into a library',
    description:
      'One seed URL: load it and follow same-origin links breadth-first up to `maxDepth` and `maxPages` (150 unless asked; at most CRAWL_MAX_PAGES, 10,000 by default, else 400 TOO_MANY_PAGES). Several URLs: crawl each, no discovery. Pages are fetched over HTTP and rendered in Chromium only when they need scripts (`renderer: "auto"`; `pagesRendered` counts them). Per-page failures are listed in `errors`; the library is embedded when it has 500 or fewer chunks, or whatever their number with `embedAll: true`. Crawl big sites with `Prefer: respond-async` and follow the job.' +
      RUNS_AS_JOB,
    respondAsync: true,
    body: crawlRequestSchema,
    ok: { schema: crawlResponseSchema, description: 'Crawled' },
    errors: JOB_ERRORS,
  },
  {
    method: 'post',
    path: '/api/ingest-url',
    tag: 'Ingestion',
    access: 'session',
    summary: 'Fetch one URL (an llms.txt or a page) into a library',
    description:
      'Replaces the library\'s chunks with the fetched content. `sourceType: "llms_txt"` parses an llms.txt file; any other value treats the URL as a plain page. The library is embedded when it has 500 or fewer chunks, or whatever their number with `embedAll: true`.' +
      RUNS_AS_JOB,
    respondAsync: true,
    body: ingestUrlRequestSchema,
    ok: { schema: ingestResponseSchema, description: 'Ingested' },
    errors: JOB_ERRORS,
  },
  {
    method: 'post',
    path: '/api/ingest-git',
    tag: 'Ingestion',
    access: 'admin',
    summary: 'Read the documentation files of a git repository into a library',
    description:
      "Fetches one commit of an http(s) git remote (`ref`: a branch, a tag or a commit id; the default branch when absent) shallowly, with the address policy applied to its host and every redirect, and reads the Markdown, MDX and reStructuredText files that `paths` select (default: docs/**, doc/**, documentation/** and every README). Each file is chunked by section, under `pageUrlTemplate` or its path; files over the size limit of one file are listed in `errors`. Replaces the library's chunks; embeds them when the library has 500 or fewer chunks, or whatever their number with `embedAll: true`. 400 NOT_A_REPOSITORY, REF_NOT_FOUND, REPOSITORY_TOO_LARGE, URL_BLOCKED or NO_CONTENT write nothing." +
      RUNS_AS_JOB,
    respondAsync: true,
    body: ingestGitRequestSchema,
    ok: { schema: ingestGitResponseSchema, description: 'Ingested' },
    errors: JOB_ERRORS,
  },
];
