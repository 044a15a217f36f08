import fs from 'node:fs';
import path from 'node:path';
import { ingestArchive, ingestGit, type IngestGitRequest } from '@docshelf/client';
import type { Command } from '@commander-js/extra-typings';
import { CliError, EXIT } from '../output';
import { RESPOND_ASYNC, runJob } from '../run-job';
import { action, collect } from './command-kit';

/** Sources read whole: a git repository's docs, and an uploaded build or folder of Markdown. */
export function sourceCommands(program: Command): void {
  program
    .command('ingest-git')
    .summary("read a git repository's documentation into a library, with a progress bar")
    .description(
      'Reads the Markdown and reStructuredText of one commit of the repository (its docs folders and READMEs unless ' +
        '--path says otherwise) into the library, replacing its chunks. Needs an admin key or a login.',
    )
    .argument('<repo-url>', 'an http(s) git remote')
    .requiredOption('-l, --library <id>', 'the library to write')
    .option('-n, --name <name>', "the library's name (default: its id)")
    .option('--ref <ref>', "a branch, tag or commit (default: the remote's default branch)")
    .option('--path <glob>', 'only files matching this glob (repeatable)', collect)
    .option('--page-url-template <template>', "each chunk's URL, with {path} for the file's path without extension")
    .option('--refresh-every <every>', 'read it again on a schedule when the ref moves: 12h, 1d, 7d')
    .option('--json', 'print only the final result, as JSON')
    .action(
      action(async (cli, repoUrl: string, options) => {
        const body: IngestGitRequest = {
          libraryId: options.library,
          name: options.name ?? options.library,
          repoUrl,
          ...(options.ref ? { ref: options.ref } : {}),
          ...(options.path?.length ? { paths: options.path } : {}),
          ...(options.pageUrlTemplate ? { pageUrlTemplate: options.pageUrlTemplate } : {}),
          ...(options.refreshEvery ? { refreshEvery: options.refreshEvery } : {}),
        };
        const client = cli.client();
        await runJob(cli, client, () => ingestGit({ client, body, headers: RESPOND_ASYNC }), options);
      }),
    );

  program
    .command('ingest-archive')
    .summary('upload a built docs site or a folder of Markdown (.zip or .tar.gz), with a progress bar')
    .description(
      "Uploads the archive; a built site's pages are read as a crawl of it reads them (from the shallowest " +
        "index.html, following its links), Markdown files as a repository's. Replaces the library's chunks. Needs an " +
        'admin key or a login.',
    )
    .argument('<archive>', 'a .zip or .tar.gz file')
    .requiredOption('-l, --library <id>', 'the library to write')
    .option('-n, --name <name>', "the library's name (default: its id)")
    .option('--base-url <url>', 'where the site is published, so chunks link there (default: paths in the archive)')
    .option('--json', 'print only the final result, as JSON')
    .action(
      action(async (cli, archive: string, options) => {
        let file: File;
        try {
          // Read from disk as it is sent, not into memory first.
          file = new File([await fs.openAsBlob(archive)], path.basename(archive));
        } catch (error) {
          throw new CliError(`Cannot read ${archive}: ${(error as Error).message}`, EXIT.usage);
        }
        // The fields before the file: the server reads the form as it streams in.
        const body = {
          libraryId: options.library,
          name: options.name ?? options.library,
          ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
          file,
        };
        const client = cli.client();
        await runJob(cli, client, () => ingestArchive({ client, body, headers: RESPOND_ASYNC }), options);
      }),
    );
}
