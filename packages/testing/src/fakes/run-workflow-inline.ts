import {
  AppError,
  jobRegistry,
  type ChildJob,
  type ChildOutcome,
  type JobContext,
  type JobName,
  type JobPayload,
  type JobResult,
  type Workflow,
} from '@docshelf/core';

export type ChildHandlers = { [N in JobName]?: (payload: JobPayload<N>, ctx: JobContext) => Promise<JobResult<N>> };

/**
 * Runs a workflow's steps in this process, each step's children one after the other, the way the worker runs them
 * through BullMQ: for fast tests of the use cases with fake ports. A child may add further children to the workflow
 * (JobContext.addToWorkflow); they run after those already queued, and the next step gets every outcome. Returns the
 * result and every child it ran.
 */
export async function runWorkflowInline<N extends JobName, S>(
  workflow: Workflow<N, S>,
  payload: JobPayload<N>,
  ctx: JobContext,
  handlers: ChildHandlers,
): Promise<{ result: JobResult<N>; children: ChildJob[] }> {
  const ran: ChildJob[] = [];
  const outcomes: ChildOutcome[] = [];
  let state: S | undefined;
  for (;;) {
    const step = await workflow.step(payload, state, [...outcomes], ctx);
    if ('done' in step) return { result: step.done, children: ran };
    // Through the queue the state is JSON in Redis and is parsed back on the next run.
    state = workflow.state.parse(JSON.parse(JSON.stringify(step.state)));
    const added = new Set([...ran.map((c) => c.key)]);
    const queue = step.wait.filter((child) => !added.has(child.key));
    queue.forEach((child) => added.add(child.key));
    const childCtx: JobContext = {
      ...ctx,
      addToWorkflow: async (children) => {
        for (const child of children) {
          if (added.has(child.key)) continue;
          added.add(child.key);
          queue.push(child);
        }
      },
    };
    while (queue.length > 0) {
      const child = queue.shift()!;
      ran.push(child);
      const handler = handlers[child.name] as ((p: unknown, c: JobContext) => Promise<unknown>) | undefined;
      if (!handler) throw new Error(`no handler for child job ${child.name}`);
      try {
        const value = jobRegistry[child.name].result.parse(await handler(child.payload, childCtx));
        outcomes.push({ key: child.key, ok: true, value });
      } catch (error) {
        outcomes.push({
          key: child.key,
          ok: false,
          error: error instanceof AppError ? error : new AppError('CHILD_JOB_FAILED', String(error), 500),
        });
      }
    }
  }
}
