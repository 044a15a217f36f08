import type { Job } from '@docshelf/client';
import cliProgress from 'cli-progress';
import type { Colors } from './output';

export type JobProgress = NonNullable<Job['progress']>;

/** What the command shows while a job runs; `finish` leaves its last state on screen. */
export interface ProgressView {
  update(progress: JobProgress): void;
  finish(): void;
}

/** Per-page errors shown under the bar, newest last; the full list is printed when the job ends. */
const ERROR_LINES = 5;

const PHASES: Record<JobProgress['phase'], { label: string; unit: string }> = {
  queued: { label: 'queued', unit: '' },
  crawling: { label: 'crawling', unit: 'pages' },
  fetching: { label: 'fetching', unit: '' },
  committing: { label: 'writing', unit: 'pages' },
  indexing: { label: 'indexing', unit: 'chunks' },
  embedding: { label: 'embedding', unit: 'chunks' },
  embed: { label: 'embedding', unit: 'chunks' },
  done: { label: 'done', unit: '' },
};

/**
 * The counts beside the bar: the crawl's pages (while crawling, the bar's own amount says them), failures, and the
 * chunks written so far.
 */
function countsOf(progress: JobProgress, color: Colors): string {
  const counts: string[] = [];
  if (progress.phase !== 'crawling' && progress.pagesCrawled !== undefined) {
    counts.push(`${progress.pagesCrawled} pages`);
  }
  if (progress.pagesFailed) counts.push(color.red(`${progress.pagesFailed} failed`));
  if (progress.pagesUnchanged) counts.push(`${progress.pagesUnchanged} unchanged`);
  if (progress.chunksIngested) counts.push(`${progress.chunksIngested} chunks`);
  return counts.join(' · ');
}

/** One line that says where a job is, for logs and for terminals without a bar. */
export function describeProgress(progress: JobProgress, color: Colors): string {
  const { label, unit } = PHASES[progress.phase];
  const amount =
    progress.phase !== 'done' && progress.total > 0
      ? ` ${progress.done}/${progress.total}${unit ? ` ${unit}` : ''}`
      : '';
  const counts = countsOf(progress, color);
  return `${label}${amount}${counts ? ` · ${counts}` : ''}`;
}

/**
 * A progress bar (cli-progress) on a terminal: the phase, a bar of its units done of those known, the crawl's counts,
 * and below it the latest per-page errors.
 */
export function barView(stream: NodeJS.WriteStream, color: Colors): ProgressView {
  const bars = new cliProgress.MultiBar({
    stream,
    hideCursor: true,
    clearOnComplete: false,
    barsize: 24,
    barCompleteChar: '█',
    barIncompleteChar: '░',
    autopadding: true,
    // Lines wider than the terminal would wrap, and the bar's redraw would leave the wrapped part behind.
    linewrap: false,
    format: (options, params, payload: { progress?: JobProgress; text?: string }) => {
      if (payload.text !== undefined) return payload.text;
      const progress = payload.progress;
      if (!progress) return 'waiting for the job to start';
      const { label, unit } = PHASES[progress.phase];
      const bar = cliProgress.Format.BarFormat(params.progress, options);
      const amount =
        progress.phase === 'done'
          ? ''
          : progress.total > 0
            ? `${progress.done}/${progress.total}${unit ? ` ${unit}` : ''}`
            : '…';
      const counts = countsOf(progress, color);
      return `${color.bold(label.padEnd(9))} ${color.cyan(bar)} ${amount}${counts ? color.dim(' · ') + counts : ''}`;
    },
  });
  const main = bars.create(1, 0, {});
  const errorLines: cliProgress.SingleBar[] = [];
  let finished = false;
  return {
    update(progress) {
      if (finished) return;
      const total = Math.max(progress.total, 1);
      main.setTotal(total);
      main.update(progress.phase === 'done' ? total : Math.min(progress.done, total), { progress });
      const latest = (progress.errors ?? []).slice(-ERROR_LINES);
      latest.forEach((message, index) => {
        const text = color.red(`  ✗ ${message}`);
        const line = errorLines[index];
        if (line) line.update(0, { text });
        else errorLines.push(bars.create(1, 0, { text }));
      });
    },
    finish() {
      if (finished) return;
      finished = true;
      bars.stop();
    },
  };
}

/** Without a terminal: a line each time the phase changes, and at most one every few seconds in between. */
export function lineView(write: (line: string) => void, color: Colors, everyMs = 5_000): ProgressView {
  let lastPhase: string | undefined;
  let lastAt = 0;
  let pending: JobProgress | undefined;
  const print = (progress: JobProgress) => {
    write(describeProgress(progress, color));
    lastPhase = progress.phase;
    lastAt = Date.now();
    pending = undefined;
  };
  return {
    update(progress) {
      if (progress.phase !== lastPhase || Date.now() - lastAt >= everyMs) print(progress);
      else pending = progress;
    },
    finish() {
      if (pending) print(pending);
    },
  };
}

export const silentView: ProgressView = { update: () => {}, finish: () => {} };
