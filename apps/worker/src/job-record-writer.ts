import {
  PROGRESS_COUNTERS,
  appendProgressErrors,
  type FinalWrite,
  type JobNotifier,
  type JobStore,
  type ProgressChange,
} from '@docshelf/core';

/** How long a change may wait before it is written: live enough to watch, few writes for a busy or short job. */
const FLUSH_AFTER_MS = 250;

/**
 * What one job attempt writes to its workflow's record: changes collected and written together at most every
 * FLUSH_AFTER_MS (a later change of phase at once), and everything before the attempt ends (flush), so the exact
 * counts a coordinator sets are never overtaken by a late increment. A root attempt also marks its job running (within FLUSH_AFTER_MS); a job that
 * ends sooner has its start and last progress carried by the write that ends it (takeFinalWrite).
 */
export class JobRecordWriter {
  private pending: ProgressChange | undefined;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private readonly startedAt = new Date();
  /** A root attempt marks its job running even before it reports any progress. */
  private needsStart: boolean;
  private writtenPhase: ProgressChange['phase'];

  constructor(
    private readonly deps: { jobStore: JobStore; notifier: JobNotifier; onError: (error: unknown) => void },
    private readonly workflowId: string,
    root: boolean,
  ) {
    this.needsStart = root;
    if (root) this.schedule();
  }

  /**
   * A change of phase after the first is written at once, so followers see a long step while it runs; counts, and a
   * job's first phase, wait for the next write (a short job is then recorded by the write that ends it).
   */
  async report(change: ProgressChange): Promise<void> {
    const phase = this.pending?.phase ?? this.writtenPhase;
    const newPhase = change.phase !== undefined && phase !== undefined && change.phase !== phase;
    this.pending = this.pending ? mergeProgress(this.pending, change) : change;
    if (newPhase) await this.flush();
    else this.schedule();
  }

  async flush(): Promise<void> {
    this.cancelTimer();
    await this.writing;
    if (!this.pending && !this.needsStart) return;
    const change = this.pending ?? {};
    this.pending = undefined;
    this.needsStart = false;
    this.writtenPhase = change.phase ?? this.writtenPhase;
    this.writing = this.write(change);
    await this.writing;
    this.writing = undefined;
  }

  /** For the root's last write, which ends its job: what was not written yet, and when the attempt started. */
  async takeFinalWrite(): Promise<FinalWrite> {
    this.cancelTimer();
    await this.writing;
    const progress = this.pending;
    this.pending = undefined;
    this.needsStart = false;
    return { progress, startedAt: this.startedAt };
  }

  private schedule(): void {
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_AFTER_MS);
  }

  private cancelTimer(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async write(change: ProgressChange): Promise<void> {
    try {
      if (await this.deps.jobStore.recordProgress(this.workflowId, change, this.startedAt))
        await this.deps.notifier.jobChanged(this.workflowId);
    } catch (error) {
      this.deps.onError(error);
    }
  }
}

/** One change with the effect of `a` then `b`: a later exact or set value replaces earlier adds, later adds add up. */
export function mergeProgress(a: ProgressChange, b: ProgressChange): ProgressChange {
  const exact: NonNullable<ProgressChange['exact']> = {};
  const set: NonNullable<ProgressChange['set']> = {};
  const add: NonNullable<ProgressChange['add']> = {};
  for (const counter of PROGRESS_COUNTERS) {
    const [aExact, aSet, aAdd] = [a.exact?.[counter], a.set?.[counter], a.add?.[counter]];
    const [bExact, bSet, bAdd] = [b.exact?.[counter], b.set?.[counter], b.add?.[counter]];
    if (bExact !== undefined) exact[counter] = bExact + (bAdd ?? 0);
    else if (aExact !== undefined) {
      // `a` leaves the counter at a known value, which `b` raises or adds to.
      const after = aExact + (aAdd ?? 0);
      exact[counter] = bSet !== undefined ? Math.max(after, bSet + (bAdd ?? 0)) : after + (bAdd ?? 0);
    } else if (bSet !== undefined) set[counter] = bSet + (bAdd ?? 0);
    else if (aSet !== undefined) set[counter] = aSet + (aAdd ?? 0) + (bAdd ?? 0);
    else if (aAdd !== undefined || bAdd !== undefined) add[counter] = (aAdd ?? 0) + (bAdd ?? 0);
  }
  const errors = a.errors || b.errors ? appendProgressErrors(a.errors, b.errors ?? []) : undefined;
  return {
    phase: b.phase ?? a.phase,
    set,
    add,
    ...(Object.keys(exact).length > 0 ? { exact } : {}),
    ...(errors ? { errors } : {}),
  };
}
