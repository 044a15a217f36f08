import type { Job } from 'bullmq';

/** The jobs this process is running, with their lock tokens, so a shutdown past its deadline can hand them back. */
export class ActiveJobs {
  private readonly jobs = new Map<string, { job: Job; token: string }>();

  async track<T>(job: Job, token: string | undefined, run: () => Promise<T>): Promise<T> {
    const key = `${job.queueName}:${job.id}`;
    if (token) this.jobs.set(key, { job, token });
    try {
      return await run();
    } finally {
      this.jobs.delete(key);
    }
  }

  get size(): number {
    return this.jobs.size;
  }

  /**
   * Moves every active job back to waiting (without counting an attempt), so another worker takes it now rather
   * than after the lock expires. A job that cannot be moved (Redis away) still returns through stall detection.
   */
  async handBack(): Promise<{ handedBack: string[]; failed: string[] }> {
    const entries = [...this.jobs.values()];
    const outcomes = await Promise.allSettled(entries.map(({ job, token }) => job.moveToWait(token)));
    const handedBack: string[] = [];
    const failed: string[] = [];
    outcomes.forEach((outcome, i) =>
      (outcome.status === 'fulfilled' ? handedBack : failed).push(String(entries[i]!.job.id)),
    );
    return { handedBack, failed };
  }
}
