import { jobRegistry, type JobName, type JobPayload, type JobResult } from '../jobs/registry';
import type { ChildJob, ChildOutcome, JobContext, Workflow } from '../jobs/workflow';
import { AppError } from '../errors';

export type ChildHandlers = { [N in JobName]?: (payload: JobPayload<N>) => Promise<JobResult<N>> };

/**
 * Runs a workflow's steps in this process, each step's children one after the other, the way the worker runs them
 * through BullMQ: for fast tests of the use cases with fake ports. Returns the result and every child it ran.
 */
export async function runWorkflowInline<N extends JobName, S>(
  workflow: Workflow<N, S>,
  payload: JobPayload<N>,
  ctx: JobContext,
  handlers: ChildHandlers,
): Promise<{ result: JobResult<N>; children: ChildJob[] }> {
  const ran: ChildJob[] = [];
  let state: S | undefined;
  let outcomes: ChildOutcome[] = [];
  for (;;) {
    const step = await workflow.step(payload, state, outcomes, ctx);
    if ('done' in step) return { result: step.done, children: ran };
    // Through the queue the state is JSON in Redis and is parsed back on the next run.
    state = workflow.state.parse(JSON.parse(JSON.stringify(step.state)));
    outcomes = [];
    for (const child of step.wait) {
      ran.push(child);
      const handler = handlers[child.name] as ((p: unknown) => Promise<unknown>) | undefined;
      if (!handler) throw new Error(`no handler for child job ${child.name}`);
      try {
        const value = jobRegistry[child.name].result.parse(await handler(child.payload));
        outcomes.push({ key: child.key, ok: true, value });
      } catch (error) {
        outcomes.push({ key: child.key, ok: false, error: error instanceof AppError ? error : new AppError('CHILD_JOB_FAILED', String(error), 500) });
      }
    }
  }
}
