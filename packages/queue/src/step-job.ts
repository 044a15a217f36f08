import {
  AppError,
  decodeAppError,
  JOB_NAMES,
  jobRegistry,
  QUEUE_NAMES,
  type ChildJob,
  type ChildOutcome,
  type JobContext,
  type JobName,
  type Workflow,
} from '@docshelf/core';
import { WaitingChildrenError, type Job, type Queue } from 'bullmq';
import { z } from 'zod';
import { jobOptionsFor } from './job-options';

/** Adds jobs to the queue their name belongs to. */
export type QueueOf = (name: JobName) => Queue;

/** The children a step waits for, as saved in the job's data (validated like any job payload read back from Redis). */
const awaitingSchema = z.array(
  z.object({ key: z.string().max(64), name: z.enum(JOB_NAMES as [JobName, ...JobName[]]), payload: z.unknown() }),
);

/** A child's id: derived from its workflow and key, so adding it twice adds it once. */
export const childJobId = (workflowId: string, key: string) => `${workflowId}.${key}`;

/**
 * Runs a Workflow on a BullMQ job (the "process step jobs" pattern): each step's state is saved in the job's data, its
 * children are added with this job as parent, and the job moves to waiting-children, which frees the worker slot.
 * When every child has finished BullMQ hands the job to a worker again and the next step gets their outcomes. A child
 * may add further children to the same parent before it ends (addChildrenTo), so the parent waits for those too.
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
  await addChildrenTo({ id: parent.id!, queue: parent.queueQualifiedName }, children, queueOf);
}

/**
 * Adds children to a workflow's root, by its id and qualified queue name (`job.parent` of one of its children). A
 * child that adds more before it ends keeps the root waiting: BullMQ moves a parent on only when none is pending.
 */
export async function addChildrenTo(
  parent: { id: string; queue: string },
  children: ChildJob[],
  queueOf: QueueOf,
): Promise<void> {
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
          jobId: childJobId(parent.id, child.key),
          parent,
          ignoreDependencyOnFailure: true,
        }),
      })),
    );
  }
}

/**
 * The outcomes of every child the job has had (those its children added included), and the awaited children that
 * have none because they were never added.
 */
async function collectOutcomes(
  job: Job,
  awaiting: ChildJob[],
): Promise<{ outcomes: ChildOutcome[]; missing: ChildJob[] }> {
  if (awaiting.length === 0) return { outcomes: [], missing: [] };
  const values = (await job.getChildrenValues()) ?? {};
  const failures = (await job.getIgnoredChildrenFailures()) ?? {};
  const keyOf = childKeyReader(job);
  const outcomes: ChildOutcome[] = [];
  for (const [jobKey, value] of Object.entries(values)) {
    const key = keyOf(jobKey);
    if (key !== undefined) outcomes.push({ key, ok: true, value });
  }
  for (const [jobKey, reason] of Object.entries(failures)) {
    const key = keyOf(jobKey);
    if (key !== undefined && !(jobKey in values)) outcomes.push({ key, ok: false, error: toAppError(reason) });
  }
  const known = new Set(outcomes.map((o) => o.key));
  return { outcomes, missing: awaiting.filter((child) => !known.has(child.key)) };
}

/** A child's key from its Redis job key (`<prefix>:<queue>:<workflowId>.<key>`). */
function childKeyReader(job: Job): (jobKey: string) => string | undefined {
  const heads = QUEUE_NAMES.map((queue) => `${job.prefix}:${queue}:${childJobId(job.id!, '')}`);
  return (jobKey) => {
    const head = heads.find((h) => jobKey.startsWith(h));
    return head === undefined ? undefined : jobKey.slice(head.length);
  };
}

function toAppError(reason: string): AppError {
  return decodeAppError(reason) ?? new AppError('CHILD_JOB_FAILED', reason, 500, { retryable: false });
}
