import { ingestLibrary, ingestRequestSchema, ingestResponseSchema } from '@docshelf/core';
import { Router } from 'express';
import type { ApiDeps } from '../api-deps';
import { authDeps, principalOf, requireAdmin } from '../http/auth';
import { jobModeOf, sendJobOutcome } from '../http/job-response';
import { checkBodyLimits } from '../http/request-limits';
import { parseInput } from '../http/validate';
import { submitDepsOf } from './submit-deps';
import { JOB_ERRORS, RUNS_AS_JOB, type Endpoint } from '../ops/openapi/endpoint';

export function ingestRoutes(deps: ApiDeps): Router {
  const auth = authDeps(deps);
  const ingestDeps = { ...submitDepsOf(deps), staging: deps.staging };
  return Router().post('/api/ingest', requireAdmin(auth), async (req, res) => {
    const body = parseInput(ingestRequestSchema, req.body);
    checkBodyLimits(deps.config.limits, body);
    sendJobOutcome(res, await ingestLibrary(ingestDeps, body, principalOf(req).userId, jobModeOf(req)));
  });
}

/** The OpenAPI entries of these routes (ops/openapi/endpoints.ts gathers every route file's). */
export const ingestEndpoints: Endpoint[] = [
  {
    method: 'post',
    path: '/api/ingest',
    operationId: 'ingestChunks',
    tag: 'Ingestion',
    access: 'admin',
    summary: 'Ingest pre-chunked documentation into a library',
    description:
      'Creates or updates the library, writes the chunks in one transaction, embeds them when the payload has 50 or fewer chunks, or whatever their number with `embedAll: true` (never with `skipEmbeddings: true`; both together are a 400), and writes a backup, then answers.' +
      RUNS_AS_JOB,
    respondAsync: true,
    body: ingestRequestSchema,
    ok: { schema: ingestResponseSchema, description: 'Ingested' },
    errors: JOB_ERRORS,
  },
];
