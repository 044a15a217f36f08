import { randomUUID } from 'node:crypto';
import {
  crawlLibrary,
  keepCrawlSource,
  keepGitSource,
  refreshLibrary,
  refreshRequestSchema,
  refreshScheduleResponseSchema,
  ingestArchiveFieldsSchema,
  ingestArchiveResponseSchema,
  ingestLibraryFromArchive,
  removeUnclaimedUpload,
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
import { z } from 'zod';
import type { ApiDeps } from '../api-deps';
import { formError, receiveUpload } from '../http/archive-upload';
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
  const refreshDeps = { libraries: deps.libraries, sources: deps.sources, scheduler: deps.jobs };
  return Router()
    .post('/api/crawl', requireAdmin(auth), async (req, res) => {
      const body = parseInput(crawlRequestSchema, req.body);
      checkBodyLimits(deps.config.limits, body);
      checkCrawlPages(deps.config.crawl.maxPages, body);
      const ownerId = principalOf(req).userId;
      const mode = jobModeOf(req, waitMs);
      await keepCrawlSource(refreshDeps, body, ownerId);
      sendJobOutcome(res, await crawlLibrary(submitDeps, body, ownerId, mode));
    })
    .post('/api/refresh', requireAdmin(auth), async (req, res) => {
      const body = parseInput(refreshRequestSchema, req.body);
      checkBodyLimits(deps.config.limits, body);
      const outcome = await refreshLibrary({ ...refreshDeps, submit: submitDeps }, body, jobModeOf(req, waitMs));
      if ('started' in outcome) sendJobOutcome(res, outcome.started);
      else res.json({ libraryId: body.libraryId, refresh: outcome.schedule });
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
      const ownerId = principalOf(req).userId;
      const mode = jobModeOf(req, waitMs);
      await keepGitSource(refreshDeps, body, ownerId);
      sendJobOutcome(res, await ingestLibraryFromGit(submitDeps, body, ownerId, mode));
    })
    .post('/api/ingest-archive', requireAdmin(auth), async (req, res) => {
      // The job takes the upload's id: the worker finds the archive under it, and removes it when the job ends.
      const uploadId = randomUUID();
      try {
        const upload = await receiveUpload(req, {
          uploads: deps.uploads,
          uploadId,
          maxBytes: deps.config.archive.uploadMaxBytes,
          fileField: 'file',
        });
        const fields = parseInput(ingestArchiveFieldsSchema, upload.fields, 'Form');
        if (!upload.stored) throw formError('The archive is missing: send it in the "file" part', 'file');
        checkBodyLimits(deps.config.limits, fields);
        const request = { ...fields, uploadId };
        sendJobOutcome(
          res,
          await ingestLibraryFromArchive(submitDeps, request, principalOf(req).userId, jobModeOf(req, waitMs)),
        );
      } finally {
        await removeUnclaimedUpload(deps, uploadId);
      }
    });
}

/** The OpenAPI entries of these routes (ops/openapi/endpoints.ts gathers every route file's). */
export const crawlEndpoints: Endpoint[] = [
  {
    method: 'post',
    path: '/api/crawl',
    operationId: 'crawlSite',
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
    path: '/api/refresh',
    operationId: 'refreshLibrary',
    tag: 'Ingestion',
    access: 'admin',
    summary: 'Crawl a library again with its kept settings, or set how often that happens',
    description:
      'Every crawl and git ingestion keeps its request as the library\'s source. Without `every`: the library is read again now from it: a crawl conditionally (unchanged pages are neither extracted nor embedded again; `pagesUnchanged` counts them), answering as POST /api/crawl does; a git source only when its ref has moved to another commit (else `unchanged: true`, nothing fetched), answering as POST /api/ingest-git does. With `every` ("12h", "1d", "7d"; at least 1 hour): the library is crawled again on that schedule (one BullMQ job scheduler per library, so each refresh runs once whatever the number of workers; each is a crawl job in /api/jobs) and the answer is its schedule; `every: null` stops it. 404 LIBRARY_NOT_FOUND; 400 NOT_REFRESHABLE for a library with no kept crawl settings.' +
      RUNS_AS_JOB,
    respondAsync: true,
    body: refreshRequestSchema,
    ok: {
      schema: z
        .union([crawlResponseSchema, ingestGitResponseSchema, refreshScheduleResponseSchema])
        .meta({ id: 'RefreshResponse' }),
      description: 'Refreshed, as a crawl or a git ingestion answers; with `every`, the schedule',
    },
    errors: [...JOB_ERRORS, 404],
  },
  {
    method: 'post',
    path: '/api/ingest-url',
    operationId: 'ingestUrl',
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
    operationId: 'ingestGit',
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
  {
    method: 'post',
    path: '/api/ingest-archive',
    operationId: 'ingestArchive',
    tag: 'Ingestion',
    access: 'admin',
    summary: 'Read an uploaded archive of a built docs site or of Markdown files into a library',
    description:
      "A multipart/form-data upload: the fields of `IngestArchiveFields` and the archive in `file` (.zip, .tar.gz or .tar, recognised by its bytes; at most ARCHIVE_UPLOAD_MAX_BYTES, else 413 PAYLOAD_TOO_LARGE). Its HTML pages are read as a crawl of the site would read them: from the shallowest index.html along the links between pages, with the same extraction and the same removal of lines repeated across pages; its Markdown, MDX and reStructuredText files are chunked by section. An entry path leading out of the archive refuses it whole (400 ARCHIVE_INVALID), as do bytes that are no archive; links and special files are skipped; an archive that expands past ARCHIVE_MAX_BYTES or holds more than ARCHIVE_MAX_ENTRIES entries is refused (400 ARCHIVE_TOO_LARGE); files over ARCHIVE_MAX_FILE_BYTES and pages no link reaches are listed in `errors`. Replaces the library's chunks, whole or not at all; a refused archive writes nothing." +
      RUNS_AS_JOB,
    respondAsync: true,
    body: ingestArchiveFieldsSchema,
    bodyContentType: 'multipart/form-data',
    ok: { schema: ingestArchiveResponseSchema, description: 'Ingested' },
    errors: JOB_ERRORS,
  },
];
