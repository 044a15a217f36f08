import type { Logger } from 'pino';
import pTimeout from 'p-timeout';
import type { RunningWorkers } from '../worker';

const HAND_BACK_TIMEOUT_MS = 1_500;

/**
 * Stops taking jobs and lets the active ones finish; jobs still running at the deadline are handed back to the
 * queue so another worker takes them at once (if Redis refuses that, stall detection returns them later).
 */
export async function drainWorkers(
  running: RunningWorkers,
  deadlineMs: number,
  logger: Logger,
): Promise<'drained' | 'handed-back'> {
  logger.info({ activeJobs: running.activeCount(), deadlineMs }, 'worker stopping: finishing active jobs');
  const outcome = await pTimeout(
    running.close().then(() => 'drained' as const),
    { milliseconds: deadlineMs, fallback: () => 'deadline' as const },
  );
  if (outcome === 'drained') return 'drained';
  // The worker's connection queues commands while Redis is away, so the hand-back gets a bound of its own.
  const handBack = await pTimeout(running.handBackActiveJobs(), { milliseconds: HAND_BACK_TIMEOUT_MS, message: false });
  if (handBack) logger.warn(handBack, 'shutdown deadline reached: active jobs handed back to the queue');
  else logger.warn('shutdown deadline reached: could not hand jobs back; they return after the stall interval');
  return 'handed-back';
}
