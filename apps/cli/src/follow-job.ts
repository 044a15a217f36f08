import readline from 'node:readline/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { ApiError, cancelJob, followJob, getJob, type Client, type Job } from '@docshelf/client';
import type { JobProgress, ProgressView } from './job-progress';

/** How following a job ended: the job as it ended, or the user left it running (Ctrl-C, then "no"). */
export type FollowOutcome = { kind: 'ended'; job: Job } | { kind: 'left-running'; jobId: string };

export interface FollowOptions {
  view: ProgressView;
  /** Ctrl-C asks whether to cancel the job (a terminal on stdin), else leaves it running. */
  askOnInterrupt: boolean;
  /** Where the question and its answers are written. */
  prompt: NodeJS.WriteStream;
}

const isFinal = (state: Job['state']) => state === 'completed' || state === 'failed' || state === 'cancelled';

/** A stream that drops before the job ends, telling nothing, is followed again this many times in a row at most. */
const RECONNECTS = 5;

/**
 * Follows a job to its end through its event stream (`GET /api/jobs/{id}/events`), showing each progress event, and
 * reads the ended job. Ctrl-C asks whether to cancel the job or leave it running.
 */
export async function followJobToEnd(client: Client, jobId: string, options: FollowOptions): Promise<FollowOutcome> {
  const stop = new AbortController();
  let interrupted: Promise<FollowOutcome> | undefined;
  const onInterrupt = () => {
    if (interrupted) {
      // A second Ctrl-C while the question waits: leave the job as it is.
      stop.abort();
      return;
    }
    interrupted = decideOnInterrupt(client, jobId, options, stop);
  };
  process.on('SIGINT', onInterrupt);
  try {
    const ended = await watch(client, jobId, options.view, stop.signal);
    if (interrupted) return await interrupted;
    return ended ? { kind: 'ended', job: ended } : { kind: 'left-running', jobId };
  } finally {
    process.off('SIGINT', onInterrupt);
    options.view.finish();
  }
}

/**
 * The job once it has ended, or undefined when following was stopped first. The job is read before each stream is
 * opened: a job this credential cannot see fails at once with the API's own error, an ended one needs no stream.
 */
async function watch(client: Client, jobId: string, view: ProgressView, signal: AbortSignal): Promise<Job | undefined> {
  let drops = 0;
  while (!signal.aborted) {
    const { data: job } = await getJob({ client, path: { id: jobId } });
    if (isFinal(job.state)) {
      view.update(job.progress);
      return job;
    }
    view.update(job.progress);
    if (drops > RECONNECTS) {
      throw new Error(`The job's event stream kept closing; follow it again with docshelf jobs watch ${jobId}`);
    }
    let lastEvent: string | undefined;
    let heard = false;
    try {
      const { stream } = await followJob({
        client,
        path: { id: jobId },
        signal,
        // A refused or dropped stream is not retried here: the loop reads the job, then follows it again.
        sseMaxRetryAttempts: 1,
        onSseEvent: (event) => {
          lastEvent = event.event;
        },
      });
      for await (const data of stream) {
        heard = true;
        if (lastEvent === 'progress') view.update(data as unknown as JobProgress);
        else if (lastEvent === 'completed' || lastEvent === 'failed' || lastEvent === 'cancelled') break;
      }
    } catch (error) {
      if (signal.aborted) break;
      throw error;
    }
    // A stream that ended without its final event dropped (a restarting server, a proxy): wait a little, longer each
    // time in a row, before following again.
    drops = heard ? 0 : drops + 1;
    if (!heard) await delay(Math.min(500 * 2 ** drops, 8_000), undefined, { signal }).catch(() => undefined);
  }
  return undefined;
}

async function decideOnInterrupt(
  client: Client,
  jobId: string,
  options: FollowOptions,
  stop: AbortController,
): Promise<FollowOutcome> {
  options.view.finish();
  if (!options.askOnInterrupt) {
    stop.abort();
    return { kind: 'left-running', jobId };
  }
  const question = readline.createInterface({ input: process.stdin, output: options.prompt });
  let answer: string;
  try {
    // readline sees the next Ctrl-C itself: it closes the question, which leaves the job running.
    const closed = new Promise<string>((resolve) => question.once('close', () => resolve('')));
    question.once('SIGINT', () => question.close());
    answer = await Promise.race([question.question('\nCancel the job? [y/N] (no leaves it running) '), closed]);
  } finally {
    question.close();
  }
  if (!/^y(es)?$/i.test(answer.trim())) {
    stop.abort();
    return { kind: 'left-running', jobId };
  }
  try {
    const { data: job } = await cancelJob({ client, path: { id: jobId } });
    return { kind: 'ended', job };
  } catch (error) {
    // Ended while the question waited: say how it ended instead. (Writing its results: the refusal says so.)
    if (!(error instanceof ApiError) || error.code !== 'JOB_NOT_CANCELLABLE') throw error;
    const { data: job } = await getJob({ client, path: { id: jobId } });
    if (!isFinal(job.state)) throw error;
    return { kind: 'ended', job };
  } finally {
    stop.abort();
  }
}
