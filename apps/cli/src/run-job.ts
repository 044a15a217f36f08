import type { AcceptedJob, Client, Job } from '@docshelf/client';
import type { Cli } from './cli';
import { CliError, EXIT, type Colors } from './output';

/** Every request that runs as a job is sent with this header, so it answers 202 with the job at once. */
export const RESPOND_ASYNC = { Prefer: 'respond-async' } as const;

/** The fields a job's result may have, whatever its type (each is the body its synchronous request answers). */
interface JobResult {
  libraryId?: string;
  pagesDiscovered?: number;
  pagesCrawled?: number;
  pagesUnchanged?: number;
  filesIngested?: number;
  chunksIngested?: number;
  vectorized?: boolean;
  processed?: number;
  total?: number;
  unchanged?: boolean;
  errors?: string[];
}

/**
 * Starts a job (its request sent with `Prefer: respond-async`), follows it with a progress bar and reports how it
 * ended: a summary, or with `json` the result as the synchronous request would answer it. A failed job is a failure of
 * the command; Ctrl-C leaves the job running unless the user cancels it.
 */
export async function runJob(
  cli: Cli,
  client: Client,
  start: () => Promise<{ data: unknown }>,
  { json = false }: { json?: boolean },
): Promise<void> {
  const { data } = await start();
  const accepted = data as AcceptedJob;
  if (!json) cli.output.note(cli.output.errColor.dim(`job ${accepted.jobId} · Ctrl-C to cancel or leave it running`));
  const outcome = await cli.follow(accepted.jobId, { json, client });
  if (outcome.kind === 'left-running') {
    cli.output.note(`The job goes on. Follow it with: docshelf jobs watch ${outcome.jobId}`);
    process.exitCode = EXIT.interrupted;
    return;
  }
  reportEnd(cli, outcome.job, { json });
}

/** How an ended job is reported, by `jobs watch` too. */
export function reportEnd(cli: Cli, job: Job, { json = false }: { json?: boolean }): void {
  if (job.state === 'completed') {
    if (json) cli.output.json(job.result);
    else cli.output.line(summaryOf(job, cli.output.color));
    return;
  }
  if (job.state === 'cancelled') {
    if (json) cli.output.json({ jobId: job.id, state: job.state });
    throw new CliError(`Job ${job.id} was cancelled; nothing it had not yet written was kept.`, EXIT.interrupted);
  }
  if (json) cli.output.json(job.error);
  const error = job.error;
  throw new CliError(`Job ${job.id} failed: ${error?.error ?? 'no reason given'}${error ? ` (${error.code})` : ''}`);
}

/** `1 chunk`, `2 chunks`. */
const count = (n: number | undefined, noun: string) => `${n ?? 0} ${noun}${n === 1 ? '' : 's'}`;

/** One line that says what a completed job did, and the per-page errors under it. */
export function summaryOf(job: Job, color: Colors): string {
  const result = (job.result ?? {}) as JobResult;
  const library = color.bold(result.libraryId ?? job.libraryId);
  const vectors = result.vectorized ? ', embedded' : '';
  let line: string;
  switch (job.type) {
    case 'crawl': {
      const failed = job.progress.pagesFailed ?? 0;
      const details = [
        failed ? color.red(`${failed} failed`) : '',
        result.pagesUnchanged ? `${result.pagesUnchanged} unchanged` : '',
      ].filter(Boolean);
      line =
        `${color.green('✓')} Crawled ${result.pagesCrawled ?? 0} of ${result.pagesDiscovered ?? 0} pages` +
        `${details.length ? ` (${details.join(', ')})` : ''} into ${library}: ${count(result.chunksIngested, 'chunk')}${vectors}`;
      break;
    }
    case 'embed':
      line = `${color.green('✓')} Embedded ${count(result.processed, 'chunk')} of ${library}${result.total !== undefined ? ` (${result.total} in all)` : ''}`;
      break;
    case 'ingest-git':
    case 'ingest-archive':
      line = result.unchanged
        ? `${color.green('✓')} ${library} is unchanged: nothing was read again`
        : `${color.green('✓')} Read ${count(result.filesIngested, 'file')} into ${library}: ${count(result.chunksIngested, 'chunk')}${vectors}`;
      break;
    default:
      line = `${color.green('✓')} Ingested ${count(result.chunksIngested, 'chunk')} into ${library}${vectors}`;
  }
  const errors = result.errors ?? [];
  return [line, ...errors.map((error) => color.red(`  ✗ ${error}`))].join('\n');
}
