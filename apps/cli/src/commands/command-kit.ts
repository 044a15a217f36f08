import { InvalidArgumentError } from '@commander-js/extra-typings';
import { createCli, type Cli, type GlobalFlags } from '../cli';
import { colorsFor, describeFailure } from '../output';
import type { Settings } from '../settings';

/**
 * A command's action with what every command needs: the server and credential from the global flags and the
 * environment, and failures printed as one message with their exit code (never a stack trace).
 */
export function action<Args extends unknown[]>(
  run: (cli: Cli, ...args: Args) => Promise<void>,
): (...args: Args) => Promise<void> {
  return async (...args) => {
    // commander passes the command last; the global flags are its parents' options.
    const command = args[args.length - 1] as { optsWithGlobals(): GlobalFlags };
    const flags = command.optsWithGlobals();
    // Until the settings are read (a bad --url fails there), errors name the server as given.
    let settings: Settings = { url: flags.url ?? 'the server' };
    try {
      const cli = createCli(flags);
      settings = cli.settings;
      await run(cli, ...args);
    } catch (error) {
      const credential = settings.apiKey ? 'key' : settings.session ? 'session' : 'none';
      const failure = describeFailure(error, settings.url, credential);
      process.stderr.write(`${colorsFor(process.stderr).red('error:')} ${failure.message}\n`);
      process.exitCode = failure.exitCode;
    }
  };
}

export function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(parsed) || parsed < 1) {
    throw new InvalidArgumentError('must be a whole number of at least 1.');
  }
  return parsed;
}

export function wholeNumber(value: string): number {
  return value === '0' ? 0 : positiveInteger(value);
}

/** For repeatable options: each use adds a value. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
