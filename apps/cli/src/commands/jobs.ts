import { cancelJob, getJob, listJobs } from '@docshelf/client';
import { Option, type Command } from '@commander-js/extra-typings';
import { describeProgress } from '../job-progress';
import { EXIT } from '../output';
import { reportEnd } from '../run-job';
import { action, positiveInteger } from './command-kit';

const STATES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;

export function jobCommands(program: Command): void {
  const jobs = program
    .command('jobs')
    .summary('list jobs, follow one, cancel one')
    .description('Jobs are crawls, ingestions and embeddings. An API key sees the jobs it started; a login every job.');

  jobs
    .command('list', { isDefault: true })
    .summary('list jobs, newest first (the default)')
    .option('-l, --library <id>', "only this library's jobs")
    .addOption(new Option('--state <state>', 'only jobs in this state').choices(STATES))
    .option('--limit <n>', 'at most this many (default 20)', positiveInteger)
    .option('--json', 'print the API answer as JSON')
    .action(
      action(async (cli, options) => {
        const { data } = await listJobs({
          client: cli.client(),
          query: {
            ...(options.library ? { libraryId: options.library } : {}),
            ...(options.state ? { state: options.state } : {}),
            limit: options.limit ?? 20,
          },
        });
        if (options.json) return cli.output.json(data);
        const { color } = cli.output;
        if (data.jobs.length === 0) {
          cli.output.line('No jobs.');
          return;
        }
        const stateColor = { completed: color.green, failed: color.red, cancelled: color.yellow } as const;
        for (const job of data.jobs) {
          const paint = stateColor[job.state as keyof typeof stateColor] ?? color.cyan;
          cli.output.line(
            `${color.dim(job.id)}  ${job.type.padEnd(14)} ${paint(job.state.padEnd(9))} ${job.libraryId}  ` +
              color.dim(`${job.createdAt.slice(0, 16).replace('T', ' ')} · ${describeProgress(job.progress, color)}`),
          );
        }
      }),
    );

  jobs
    .command('watch')
    .summary('follow a job to its end with a progress bar')
    .argument('<id>', 'the job id')
    .option('--json', 'print only the final result, as JSON')
    .action(
      action(async (cli, id: string, options) => {
        const client = cli.client();
        const outcome = await cli.follow(id, { json: Boolean(options.json), client });
        if (outcome.kind === 'left-running') {
          cli.output.note(`The job goes on. Follow it again with: docshelf jobs watch ${id}`);
          process.exitCode = EXIT.interrupted;
          return;
        }
        reportEnd(cli, outcome.job, { json: Boolean(options.json) });
      }),
    );

  jobs
    .command('show')
    .summary('print one job as the API has it')
    .argument('<id>', 'the job id')
    .action(
      action(async (cli, id: string) => {
        const { data } = await getJob({ client: cli.client(), path: { id } });
        cli.output.json(data);
      }),
    );

  jobs
    .command('cancel')
    .summary('cancel a queued or running job')
    .argument('<id>', 'the job id')
    .action(
      action(async (cli, id: string) => {
        const { data } = await cancelJob({ client: cli.client(), path: { id } });
        cli.output.line(`Job ${data.id} is ${data.state}.`);
      }),
    );
}
