import { connect, type Client } from '@docshelf/client';
import { followJobToEnd, type FollowOutcome } from './follow-job';
import { barView, lineView, silentView } from './job-progress';
import { CliError, EXIT, terminalOutput, type Output } from './output';
import { resolveSettings, type Settings } from './settings';

/** What every command works with: the server and credential it was given, and where it writes. */
export interface Cli {
  settings: Settings;
  output: Output;
  /** A client sending the API key when there is one, else the stored session. */
  client(): Client;
  /** A client sending only the stored session, for what only a session may do (keys, ingest-url). */
  sessionClient(): Client;
  /**
   * Follows a job to its end with a progress bar (a line now and then off a terminal; nothing with `json`), through
   * `client` (the one that started it: a key reads only the jobs it started).
   */
  follow(jobId: string, options: { json: boolean; client: Client }): Promise<FollowOutcome>;
}

export interface GlobalFlags {
  url?: string;
  apiKey?: string;
}

export function createCli(flags: GlobalFlags, env: NodeJS.ProcessEnv = process.env): Cli {
  let settings: Settings;
  try {
    settings = resolveSettings(flags, env);
  } catch (error) {
    throw new CliError((error as Error).message, EXIT.usage);
  }
  const output = terminalOutput(env);
  const cli: Cli = {
    settings,
    output,
    client: () => connect({ baseUrl: settings.url, apiKey: settings.apiKey, session: settings.session }),
    sessionClient: () => {
      if (!settings.session) {
        throw new CliError(
          `This needs a dashboard session on ${settings.url}: run docshelf login first (API keys are not accepted here).`,
          EXIT.denied,
        );
      }
      return connect({ baseUrl: settings.url, session: settings.session });
    },
    follow: (jobId, { json, client }) => {
      const view = json
        ? silentView
        : output.err.isTTY
          ? barView(output.err, output.errColor)
          : lineView(output.note, output.errColor);
      return followJobToEnd(client, jobId, {
        view,
        askOnInterrupt: !json && Boolean(process.stdin.isTTY) && Boolean(output.err.isTTY),
        prompt: output.err,
      });
    },
  };
  return cli;
}
