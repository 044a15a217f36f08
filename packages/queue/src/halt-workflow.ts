import { setTimeout as delay } from 'node:timers/promises';
import { Job, type Queue } from 'bullmq';

const POLL_MS = 100;

/**
 * Drops a cancelled workflow's children that have not started, then waits until none of its jobs is active. Jobs
 * check for cancellation before they start, and a job counts as active from the moment a worker took it, so once
 * this returns true no job of the workflow starts fetching or writing any more.
 */
export async function haltWorkflow(queues: Queue[], workflowId: string, timeoutMs: number): Promise<boolean> {
  for (const queue of queues) {
    const root = await Job.fromId(queue, workflowId);
    // The root then resumes as soon as its running children end, sees the cancel and cleans up.
    if (root) await root.removeUnprocessedChildren();
  }
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const active = (await Promise.all(queues.map((queue) => queue.getActive()))).flat();
    if (!active.some((job) => job.id === workflowId || job.parent?.id === workflowId)) return true;
    if (Date.now() >= deadline) return false;
    await delay(POLL_MS);
  }
}
