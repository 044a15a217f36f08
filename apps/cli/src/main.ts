import { CommanderError } from '@commander-js/extra-typings';
import { version } from '../package.json';
import { EXIT } from './output';
import { buildProgram } from './program';

/** Runs the command line `argv` (as process.argv) and resolves once it is done; the exit code is set, not exited. */
export async function main(argv: string[]): Promise<void> {
  const program = buildProgram(version);
  // commander's own errors (an unknown option, a missing argument) are usage errors: exit code 2.
  program.exitOverride();
  for (const command of program.commands) command.exitOverride();
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    process.exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
}
