import { Counter, Histogram, type Registry } from 'prom-client';

export type JobOutcome = 'completed' | 'failed' | 'retrying';

export interface JobMetrics {
  processed: Counter<'queue' | 'job' | 'outcome'>;
  duration: Histogram<'queue' | 'job' | 'outcome'>;
  crawlPagesFetched: Counter<string>;
  crawlPagesFailed: Counter<string>;
  crawlPagesRendered: Counter<string>;
}

export function createJobMetrics(registry: Registry): JobMetrics {
  const labelNames = ['queue', 'job', 'outcome'] as const;
  return {
    processed: new Counter({
      name: 'jobs_processed_total',
      help: 'Job attempts finished by this worker, by outcome (completed, failed for good, retrying)',
      labelNames,
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'job_duration_seconds',
      help: 'Time a job attempt took in the processor',
      labelNames,
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900, 1800],
      registers: [registry],
    }),
    crawlPagesFetched: new Counter({
      name: 'crawl_pages_fetched_total',
      help: 'Crawl pages fetched, extracted and staged',
      registers: [registry],
    }),
    crawlPagesFailed: new Counter({
      name: 'crawl_pages_failed_total',
      help: 'Crawl pages that failed for good (after retries)',
      registers: [registry],
    }),
    crawlPagesRendered: new Counter({
      name: 'crawl_pages_rendered_total',
      help: 'Crawl pages of crawl_pages_fetched_total that were rendered in Chromium',
      registers: [registry],
    }),
  };
}

/** Records one finished attempt; a crawl-page job is also one page fetched or failed. */
export function recordJobAttempt(
  metrics: JobMetrics,
  attempt: { queue: string; job: string; outcome: JobOutcome; seconds: number; renderedWith?: string },
): void {
  const labels = { queue: attempt.queue, job: attempt.job, outcome: attempt.outcome };
  metrics.processed.inc(labels);
  metrics.duration.observe(labels, attempt.seconds);
  if (attempt.job !== 'crawl-page') return;
  if (attempt.outcome === 'completed') metrics.crawlPagesFetched.inc();
  if (attempt.outcome === 'completed' && attempt.renderedWith === 'browser') metrics.crawlPagesRendered.inc();
  else if (attempt.outcome === 'failed') metrics.crawlPagesFailed.inc();
}
