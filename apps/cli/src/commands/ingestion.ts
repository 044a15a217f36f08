import fs from 'node:fs';
import {
  crawlSite,
  embedChunks,
  ingestChunks,
  ingestUrl,
  type CrawlRequest,
  type IngestRequest,
} from '@docshelf/client';
import { Option, type Command } from '@commander-js/extra-typings';
import { CliError, EXIT } from '../output';
import { RESPOND_ASYNC, runJob } from '../run-job';
import { action, collect, positiveInteger, wholeNumber } from './command-kit';

export function ingestionCommands(program: Command): void {
  program
    .command('crawl')
    .summary('crawl a documentation site into a library, with a progress bar')
    .description(
      'Crawls the site from each start URL into the library (replacing its chunks with --replace), shows the pages ' +
        'crawled of those found, failures and chunks as it goes, and ends with what it wrote. Ctrl-C asks whether to ' +
        'cancel the crawl or leave it running. Needs an admin key or a login.',
    )
    .argument('<url...>', 'where the crawl starts: one or more page URLs of the site')
    .requiredOption('-l, --library <id>', 'the library to write, e.g. acme/widgets')
    .option('-n, --name <name>', "the library's name (default: its id)")
    .option('--max-pages <n>', 'crawl at most this many pages', positiveInteger)
    .option('--max-depth <n>', 'follow links this many steps from a start URL', positiveInteger)
    .option('--include <glob>', 'only paths matching this glob (repeatable)', collect)
    .option('--exclude <glob>', 'never paths matching this glob (repeatable)', collect)
    .addOption(new Option('--renderer <how>', 'how pages are loaded').choices(['auto', 'http', 'browser']))
    .option('--replace', "replace the library's chunks instead of adding to them")
    .option('--refresh-every <every>', 'crawl it again on a schedule: 12h, 1d, 7d')
    .option('--json', 'print only the final result, as JSON')
    .action(
      action(async (cli, urls: string[], options) => {
        const body: CrawlRequest = {
          libraryId: options.library,
          name: options.name ?? options.library,
          urls,
          ...(options.maxPages !== undefined ? { maxPages: options.maxPages } : {}),
          ...(options.maxDepth !== undefined ? { maxDepth: options.maxDepth } : {}),
          ...(options.include?.length ? { includePaths: options.include } : {}),
          ...(options.exclude?.length ? { excludePaths: options.exclude } : {}),
          ...(options.renderer ? { renderer: options.renderer } : {}),
          ...(options.replace ? { replace: true } : {}),
          ...(options.refreshEvery ? { refreshEvery: options.refreshEvery } : {}),
        };
        const client = cli.client();
        await runJob(cli, client, () => crawlSite({ client, body, headers: RESPOND_ASYNC }), options);
      }),
    );

  program
    .command('ingest')
    .summary('ingest pre-chunked JSON from a file or stdin')
    .description(
      'Sends the body of POST /api/ingest — {"libraryId", "name", "chunks": [{"id", "content", "title"?, "url"?}]} — ' +
        'read from the file, or from stdin with "-". --library and --name override the file\'s. Needs an admin key or a login.',
    )
    .argument('<file>', 'a JSON file, or - for stdin')
    .option('-l, --library <id>', 'the library to write (default: the file\'s "libraryId")')
    .option('-n, --name <name>', 'the library\'s name (default: the file\'s "name", else the id)')
    .option('--replace', "replace the library's chunks instead of adding to them")
    .option('--json', 'print only the final result, as JSON')
    .action(
      action(async (cli, file: string, options) => {
        const payload = readJson(file);
        const libraryId = options.library ?? payload.libraryId;
        if (typeof libraryId !== 'string') {
          throw new CliError(`${file} names no "libraryId"; give one with --library`, EXIT.usage);
        }
        const body = {
          ...payload,
          libraryId,
          name: options.name ?? payload.name ?? libraryId,
          ...(options.replace ? { replace: true } : {}),
        } as IngestRequest;
        const client = cli.client();
        await runJob(cli, client, () => ingestChunks({ client, body, headers: RESPOND_ASYNC }), options);
      }),
    );

  program
    .command('ingest-url')
    .summary('ingest one page or llms.txt file into a library (replacing its chunks)')
    .description("Fetches the URL and replaces the library's chunks with its content. Needs a login (docshelf login).")
    .argument('<url>', 'the page or llms.txt file')
    .requiredOption('-l, --library <id>', 'the library to write')
    .option('-n, --name <name>', "the library's name (default: its id)")
    .option('--type <type>', 'llms_txt parses an llms.txt file; anything else reads a page (default: by the URL)')
    .option('--json', 'print only the final result, as JSON')
    .action(
      action(async (cli, url: string, options) => {
        const sourceType = options.type ?? (/\/llms(-full)?\.txt$/i.test(url) ? 'llms_txt' : 'page');
        const body = { libraryId: options.library, name: options.name ?? options.library, sourceUrl: url, sourceType };
        const client = cli.sessionClient();
        await runJob(cli, client, () => ingestUrl({ client, body, headers: RESPOND_ASYNC }), options);
      }),
    );

  program
    .command('embed')
    .summary("embed a library's chunks, with a progress bar")
    .description(
      "Embeds a range of the library's chunks (--offset, --limit), or with --all every chunk that has no vector yet. " +
        'Needs an admin key or a login.',
    )
    .argument('<library>', 'the library id')
    .option('--all', 'every chunk still without a vector')
    .option('--offset <n>', 'the first chunk of the range', wholeNumber)
    .option('--limit <n>', 'how many chunks (default 200)', positiveInteger)
    .option('--json', 'print only the final result, as JSON')
    .action(
      action(async (cli, libraryId: string, options) => {
        if (options.all && (options.offset || options.limit)) {
          throw new CliError(
            '--all embeds every chunk still without a vector: leave out --offset and --limit',
            EXIT.usage,
          );
        }
        const body = {
          libraryId,
          ...(options.all ? { all: true } : {}),
          ...(options.offset !== undefined ? { offset: options.offset } : {}),
          ...(options.limit !== undefined ? { limit: options.limit } : {}),
        };
        const client = cli.client();
        await runJob(cli, client, () => embedChunks({ client, body, headers: RESPOND_ASYNC }), options);
      }),
    );
}

/** The JSON of a file, or of stdin for "-"; an object, or a usage error that says what is wrong. */
function readJson(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = fs.readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (error) {
    throw new CliError(`Cannot read ${file}: ${(error as Error).message}`, EXIT.usage);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliError(`${file === '-' ? 'stdin' : file} is not JSON: ${(error as Error).message}`, EXIT.usage);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CliError(`${file} must hold one object with "chunks" (the body of POST /api/ingest)`, EXIT.usage);
  }
  return value as Record<string, unknown>;
}
