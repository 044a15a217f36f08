import {
  cancelJob,
  followJob,
  jobIdSchema,
  jobListQuerySchema,
  jobNotFound,
  listJobs,
  readJob,
  type JobEvent,
} from '@docshelf/core';
import { Router, type Request } from 'express';
import type { ApiDeps } from '../api-deps';
import { authDeps, jobViewerOf, requireAdmin } from '../http/auth';
import { parseInput } from '../http/validate';

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
