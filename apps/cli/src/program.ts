import { Command } from '@commander-js/extra-typings';
import { accountCommands } from './commands/account';
import { ingestionCommands } from './commands/ingestion';
import { jobCommands } from './commands/jobs';
import { mcpConfigCommand } from './commands/mcp-config';
import { readingCommands } from './commands/reading';
import { sourceCommands } from './commands/sources';
import { DEFAULT_URL } from './settings';

/** The `docshelf` command and its subcommands, each with its own --help. */
export function buildProgram(version: string): Command {
  const program = new Command('docshelf')
    .description('Crawl, ingest, search and read documentation libraries on a Docshelf server.')
    .version(version, '-V, --version')
    .option('--url <url>', `the server (default: DOCSHELF_URL, else ${DEFAULT_URL})`)
    .option('--api-key <key>', 'an API key (default: DOCSHELF_API_KEY, else the session of docshelf login)')
    .showHelpAfterError('(docshelf --help lists the commands; docshelf <command> --help explains one)')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  docshelf crawl https://docs.example.com/ --library example/docs\n' +
        '  docshelf search "configure retries" --library example/docs\n' +
        '  docshelf context example/docs "configure retries" --tokens 2000 | pbcopy\n' +
        '  docshelf mcp-config --client cursor --create-key',
    );
  ingestionCommands(program);
  sourceCommands(program);
  readingCommands(program);
  jobCommands(program);
  accountCommands(program);
  mcpConfigCommand(program);
  return program;
}
