import { CommanderError } from '@commander-js/extra-typings';
import { version } from '../package.json';
import { EXIT } from './output';
import { buildProgram } from './program';

/** Runs the command line `argv` (as process.argv) and resolves once it is done; the exit code is set, not exited. */
export async function main(argv: string[]): Promise<void> {
  // A reader that stops early (`docshelf context … | head`) closes the pipe: that ends the command, quietly.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      process.exit(typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok);
    });
  }
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
