import {
  cancelJob,
  followJob,
  jobIdSchema,
  jobListQuerySchema,
  jobNotFound,
  listJobs,
  readJob,
  type JobEvent,
  jobListSchema,
  jobRecordSchema,
} from '@docshelf/core';
import { Router, type Request } from 'express';
import type { ApiDeps } from '../api-deps';
import { authDeps, jobViewerOf, requireAdmin } from '../http/auth';
import { parseInput } from '../http/validate';
import { type Endpoint } from '../ops/openapi/endpoint';

/** Proxies close idle streams; a comment line now and then keeps an event stream open. */
const HEARTBEAT_MS = 15_000;

/** Job ids are UUIDs: anything else names no job (404, like an unknown one). */
function jobIdOf(req: Request): string {
  const parsed = jobIdSchema.safeParse(req.params.id);
  if (!parsed.success) throw jobNotFound(String(req.params.id).slice(0, 64));
  return parsed.data;
}

/**
 * Jobs are readable with the credentials that may start them: an admin key (only the jobs it started) or a session
 * (every job).
 */
export function jobRoutes(deps: ApiDeps): Router {
  const admin = requireAdmin(authDeps(deps));
  const manage = { jobStore: deps.jobStore, halter: deps.jobs, notifier: deps.jobs };
  return Router()
    .get('/api/jobs', admin, async (req, res) => {
      res.json(await listJobs(deps, parseInput(jobListQuerySchema, req.query, 'Query'), jobViewerOf(req)));
    })
    .get('/api/jobs/:id', admin, async (req, res) => {
      res.json(await readJob(deps, jobIdOf(req), jobViewerOf(req)));
    })
    .delete('/api/jobs/:id', admin, async (req, res) => {
      res.json(await cancelJob(manage, jobIdOf(req), jobViewerOf(req)));
    })
    .get('/api/jobs/:id/events', admin, async (req, res) => {
      const id = jobIdOf(req);
      await readJob(deps, id, jobViewerOf(req));
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      res.flushHeaders();
      const gone = new AbortController();
      res.on('close', () => gone.abort());
      // A client told nothing reconnects (EventSource does), to this or another instance.
      const ended = deps.shutdownSignal ? AbortSignal.any([gone.signal, deps.shutdownSignal]) : gone.signal;
      const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
      const send = (event: JobEvent) => res.write(`event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`);
      try {
        await followJob({ jobStore: deps.jobStore, watcher: deps.jobs }, id, send, ended);
      } catch (error) {
        deps.logger.warn({ err: error, jobId: id, requestId: req.requestId }, 'job event stream ended by an error');
      } finally {
        clearInterval(heartbeat);
        res.end();
      }
    });
}

/** The OpenAPI entries of these routes (ops/openapi/endpoints.ts gathers every route file's). */
export const jobEndpoints: Endpoint[] = [
  {
    method: 'get',
    path: '/api/jobs',
    operationId: 'listJobs',
    tag: 'Jobs',
    access: 'admin',
    query: jobListQuerySchema,
    summary: 'List jobs, newest first',
    description:
      'Jobs stay listed for JOB_RETENTION_DAYS after they end, whatever Redis keeps. An API key lists the jobs it started; a session every job.',
    ok: { schema: jobListSchema, description: 'The jobs' },
    errors: [400, 401, 403, 500],
  },
  {
    method: 'get',
    path: '/api/jobs/{id}',
    operationId: 'getJob',
    tag: 'Jobs',
    access: 'admin',
    jobIdParam: true,
    summary: 'A job: its state, progress and, once ended, result or error',
    description:
      "`result` is the body the synchronous request answers; `error` the error it answers. An API key reads, follows and cancels only the jobs it started (another's is 404 JOB_NOT_FOUND); a session every job.",
    ok: { schema: jobRecordSchema, description: 'The job' },
    errors: [401, 403, 404, 500],
  },
  {
    method: 'get',
    path: '/api/jobs/{id}/events',
    operationId: 'followJob',
    tag: 'Jobs',
    access: 'admin',
    jobIdParam: true,
    summary: 'Follow a job as server-sent events',
    description:
      '`event: progress` (data: the progress object) as work advances, then exactly one `completed` (data: the result), `failed` (data: the error) or `cancelled` (data: the job), and the stream ends. A client that connects after the end gets the final event at once.',
    ok: { description: 'The event stream', contentType: 'text/event-stream' },
    errors: [401, 403, 404],
  },
  {
    method: 'delete',
    path: '/api/jobs/{id}',
    operationId: 'cancelJob',
    tag: 'Jobs',
    access: 'admin',
    jobIdParam: true,
    summary: 'Cancel a queued or running job',
    description:
      "Answers once none of the job's work runs any more: a cancelled crawl fetches no further page and commits nothing. A job that has begun writing the library, or has ended, cannot be cancelled (409 JOB_NOT_CANCELLABLE).",
    ok: { schema: jobRecordSchema, description: 'The cancelled job' },
    errors: [401, 403, 404, 409, 500],
  },
];
