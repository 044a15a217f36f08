import { getContext, getLibrary, listLibraries, searchDocs, type Library } from '@docshelf/client';
import { Option, type Command } from '@commander-js/extra-typings';
import type { Colors } from '../output';
import { action, collect, positiveInteger } from './command-kit';

export function readingCommands(program: Command): void {
  program
    .command('search')
    .summary('search libraries and print the ranked results')
    .description(
      'Searches the libraries named with --library (every library without one) and prints each result: its title, ' +
        "URL and the passage that matched, the question's words highlighted on a terminal. Needs any key or a login " +
        '(or none when the server is public).',
    )
    .argument('<question>', 'what you are looking for, in words')
    .option('-l, --library <id>', 'a library to search (repeatable)', collect)
    .option('--limit <n>', 'how many results (default 10)', positiveInteger)
    .addOption(new Option('--mode <mode>', 'force one ranking').choices(['hybrid', 'keyword', 'vector']))
    .option('--json', 'print the API answer as JSON')
    .action(
      action(async (cli, question: string, options) => {
        const { data } = await searchDocs({
          client: cli.client(),
          query: {
            q: question,
            ...(options.library?.length ? { libraryId: options.library } : {}),
            limit: String(options.limit ?? 10),
            ...(options.mode ? { mode: options.mode } : {}),
          },
        });
        if (options.json) return cli.output.json(data);
        const { color } = cli.output;
        if (data.results.length === 0) {
          cli.output.line(`No results for "${question}".`);
          return;
        }
        data.results.forEach((result, index) => {
          cli.output.line(`${color.dim(`${index + 1}.`)} ${color.bold(result.title ?? result.chunkId)}`);
          cli.output.line(`   ${color.cyan(result.url ?? '(no URL)')} ${color.dim(`· ${result.libraryId}`)}`);
          cli.output.line(`   ${snippetOf(result.content, question, color)}`);
          cli.output.line();
        });
      }),
    );

  program
    .command('context')
    .summary("print a library's text for a question, packed to a token budget")
    .description(
      'Prints the passages of the library that answer the question, merged per page, each under its title and ' +
        'source, within the token budget: plain text ready to pipe into a prompt.',
    )
    .argument('<library>', 'the library id (a base id reads its newest version)')
    .argument('<question>', 'what the text should answer')
    .option('-t, --tokens <n>', 'at most this many tokens (100–100,000; default 5,000)', positiveInteger)
    .option('--json', 'print the pieces as JSON instead')
    .action(
      action(async (cli, libraryId: string, question: string, options) => {
        const { data } = await getContext({
          client: cli.client(),
          query: {
            libraryId,
            query: question,
            ...(options.tokens !== undefined ? { tokens: String(options.tokens) } : {}),
            format: options.json ? 'json' : 'txt',
          },
          parseAs: options.json ? 'json' : 'text',
        });
        // The plain-text answer (format=txt) is the text itself; its type is the JSON one's.
        const text: unknown = data;
        if (options.json || typeof text !== 'string') return cli.output.json(data);
        cli.output.out.write(text.endsWith('\n') ? text : `${text}\n`);
      }),
    );

  program
    .command('libraries')
    .summary('list the libraries')
    .option('-f, --filter <text>', 'only libraries whose id or name has this text')
    .option('--json', 'print the API answer as JSON')
    .action(
      action(async (cli, options) => {
        const { data } = await listLibraries({
          client: cli.client(),
          query: options.filter ? { q: options.filter } : {},
        });
        if (options.json) return cli.output.json(data);
        if (data.libraries.length === 0) {
          cli.output.line(options.filter ? `No library matches "${options.filter}".` : 'No libraries yet.');
          return;
        }
        printTable(cli.output.line, cli.output.color, [
          ['ID', 'NAME', 'CHUNKS', 'EMBEDDED', 'UPDATED'],
          ...data.libraries.map((library) => [
            library.id,
            library.name,
            String(library.chunkCount),
            embeddedShare(library),
            library.updatedAt.slice(0, 10),
          ]),
        ]);
      }),
    );

  program
    .command('library')
    .summary('show one library')
    .argument('<id>', 'the library id')
    .option('--json', 'print the API answer as JSON')
    .action(
      action(async (cli, id: string, options) => {
        const { data } = await getLibrary({ client: cli.client(), path: { id } });
        if (options.json) return cli.output.json(data);
        const { library } = data;
        const { color } = cli.output;
        const rows: [string, string][] = [
          ['Name', library.name],
          ['Description', library.description ?? ''],
          ['Source', [library.sourceType, library.sourceUrl].filter(Boolean).join(' ')],
          ['Version', library.version ?? ''],
          ['Chunks', String(library.chunkCount)],
          ['Embedded', `${embeddedShare(library)}${library.embeddingModel ? ` (${library.embeddingModel})` : ''}`],
          ['Refresh', library.refresh ? `every ${library.refresh.every}` : ''],
          ['Created', library.createdAt],
          ['Updated', library.updatedAt],
        ];
        cli.output.line(color.bold(library.id));
        for (const [label, value] of rows) if (value) cli.output.line(`  ${color.dim(label.padEnd(12))} ${value}`);
      }),
    );
}

function embeddedShare(library: Library): string {
  if (library.chunkCount === 0) return '—';
  return `${Math.round((100 * Math.min(library.vectorCount ?? 0, library.chunkCount)) / library.chunkCount)}%`;
}

/** Columns padded to their widest cell, the header dimmed. */
function printTable(line: (text: string) => void, color: Colors, rows: string[][]): void {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  rows.forEach((row, index) => {
    const text = row
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
    line(index === 0 ? color.dim(text) : text);
  });
}

const SNIPPET_CHARS = 240;

/**
 * The part of a passage around the first word of the question it holds, on one line, with the question's words
 * highlighted (when colours are on).
 */
export function snippetOf(content: string, question: string, color: Colors): string {
  const text = content.replace(/\s+/g, ' ').trim();
  const words = [...new Set(question.toLowerCase().match(/[\p{L}\p{N}_]{3,}/gu) ?? [])];
  const pattern = words.length
    ? new RegExp(`(?<![\\p{L}\\p{N}_])(${words.map(escapeRegExp).join('|')})`, 'giu')
    : undefined;
  const first = pattern ? text.search(pattern) : -1;
  const start = first > SNIPPET_CHARS / 3 ? text.lastIndexOf(' ', first - SNIPPET_CHARS / 3) + 1 : 0;
  let snippet = text.slice(start, start + SNIPPET_CHARS);
  if (start + SNIPPET_CHARS < text.length) snippet = `${snippet.slice(0, snippet.lastIndexOf(' '))} …`;
  if (start > 0) snippet = `… ${snippet}`;
  return pattern ? snippet.replace(pattern, (word) => color.bold(color.yellow(word))) : snippet;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
