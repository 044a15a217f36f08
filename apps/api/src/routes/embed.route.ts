import { embedRequestSchema, requestEmbedding, embedResponseSchema } from '@docshelf/core';
import { Router } from 'express';
import type { ApiDeps } from '../api-deps';
import { authDeps, requireAdmin } from '../http/auth';
import { jobModeOf, sendJobOutcome } from '../http/job-response';
import { checkBodyLimits } from '../http/request-limits';
import { parseInput } from '../http/validate';
import { submitDepsOf } from './submit-deps';
import { JOB_ERRORS, RUNS_AS_JOB, type Endpoint } from '../ops/openapi/endpoint';

export function embedRoutes(deps: ApiDeps): Router {
  const auth = authDeps(deps);
  const embedDeps = { ...submitDepsOf(deps), libraries: deps.libraries };
  return Router().post('/api/embed', requireAdmin(auth), async (req, res) => {
    const body = parseInput(embedRequestSchema, req.body);
    checkBodyLimits(deps.config.limits, body);
    sendJobOutcome(res, await requestEmbedding(embedDeps, body, jobModeOf(req)));
  });
}

/** The OpenAPI entries of these routes (ops/openapi/endpoints.ts gathers every route file's). */
export const embedEndpoints: Endpoint[] = [
  {
    method: 'post',
    path: '/api/embed',
    operationId: 'embedChunks',
    tag: 'Ingestion',
    access: 'admin',
    summary: "Embed a page of a library's chunks, or all those without a vector",
    description:
      'Embeds chunks `[offset, offset + limit)` in library order. Repeat with `nextOffset` until `done` is true. With `all: true` one job embeds every chunk that has no vector yet and answers `processed` (chunks embedded), `total` (chunks in the library), `offset: 0`, `nextOffset: null`, `done: true`; its job progress is phase `embed`, `total` the chunks left to embed.' +
      RUNS_AS_JOB,
    respondAsync: true,
    body: embedRequestSchema,
    ok: { schema: embedResponseSchema, description: 'Embedded' },
    errors: [...JOB_ERRORS, 404],
  },
];
