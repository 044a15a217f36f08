import { AppError, decodeAppError, JOB_NAMES, jobRegistry, type ChildJob, type ChildOutcome, type JobContext, type JobName, type Workflow } from '@docshelf/core';
import { WaitingChildrenError, type Job, type Queue } from 'bullmq';
import { z } from 'zod';
import { jobOptionsFor } from './job-options';

/** Adds jobs to the queue their name belongs to. */
export type QueueOf = (name: JobName) => Queue;

/** The children a step waits for, as saved in the job's data (validated like any job payload read back from Redis). */
const awaitingSchema = z.array(z.object({ key: z.string().max(64), name: z.enum(JOB_NAMES as [JobName, ...JobName[]]), payload: z.unknown() }));

/** A child's id: derived from its workflow and key, so adding it twice adds it once. */
export const childJobId = (workflowId: string, key: string) => `${workflowId}.${key}`;

/**
 * Runs a Workflow on a BullMQ job (the "process step jobs" pattern): each step's state is saved in the job's data, its
 * children are added with this job as parent, and the job moves to waiting-children, which frees the worker slot.
 * When every child has finished BullMQ hands the job to a worker again and the next step gets their outcomes.
 */
export async function runStepJob<N extends JobName, S>(
  job: Job,
  token: string,
  workflow: Workflow<N, S>,
  payload: Parameters<Workflow<N, S>['step']>[0],
  ctx: JobContext,
  queueOf: QueueOf,
): Promise<unknown> {
  for (;;) {
    const data = job.data as Record<string, unknown>;
    const state = data.workflowState === undefined ? undefined : workflow.state.parse(data.workflowState);
    const awaiting = awaitingSchema.parse(data.workflowAwaiting ?? []) as ChildJob[];
    const { outcomes, missing } = await collectOutcomes(job, awaiting);
    if (missing.length > 0) {
      // The previous run saved its state but stopped before adding these children.
      await addChildren(job, missing, queueOf);
      if (await job.moveToWaitingChildren(token)) throw new WaitingChildrenError();
      continue;
    }
    const step = await workflow.step(payload, state, outcomes, ctx);
    if ('done' in step) return step.done;
    await job.updateData({ ...data, workflowState: step.state, workflowAwaiting: step.wait });
    await addChildren(job, step.wait, queueOf);
    if (await job.moveToWaitingChildren(token)) throw new WaitingChildrenError();
  }
}

export const isWaitingForChildren = (error: unknown) => error instanceof WaitingChildrenError;

async function addChildren(parent: Job, children: ChildJob[], queueOf: QueueOf): Promise<void> {
  const byQueue = new Map<Queue, ChildJob[]>();
  for (const child of children) {
    const queue = queueOf(child.name);
    byQueue.set(queue, [...(byQueue.get(queue) ?? []), child]);
  }
  for (const [queue, batch] of byQueue) {
    await queue.addBulk(
      batch.map((child) => ({
        name: child.name,
        data: jobRegistry[child.name].payload.parse(child.payload),
        // A failed child is handed to the next step as an outcome, with its error code, instead of failing the parent.
        opts: jobOptionsFor(child.name, {
          jobId: childJobId(parent.id!, child.key),
          parent: { id: parent.id!, queue: parent.queueQualifiedName },
          ignoreDependencyOnFailure: true,
        }),
      })),
    );
  }
}

async function collectOutcomes(job: Job, awaiting: ChildJob[]): Promise<{ outcomes: ChildOutcome[]; missing: ChildJob[] }> {
  if (awaiting.length === 0) return { outcomes: [], missing: [] };
  const values = (await job.getChildrenValues()) ?? {};
  const failures = (await job.getIgnoredChildrenFailures()) ?? {};
  const outcomes: ChildOutcome[] = [];
  const missing: ChildJob[] = [];
  for (const child of awaiting) {
    const key = `${job.prefix}:${jobRegistry[child.name].queue}:${childJobId(job.id!, child.key)}`;
    if (key in values) outcomes.push({ key: child.key, ok: true, value: values[key] });
    else if (key in failures) outcomes.push({ key: child.key, ok: false, error: toAppError(failures[key]!) });
    else missing.push(child);
  }
  return { outcomes, missing };
}

function toAppError(reason: string): AppError {
  return decodeAppError(reason) ?? new AppError('CHILD_JOB_FAILED', reason, 500, { retryable: false });
}
