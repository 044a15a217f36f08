import { setImmediate as nextTurn } from 'node:timers/promises';
import type { GitDocFile, GitSource, GitSourceRead } from '@docshelf/core';
import { convertDocFile } from '../doc-files/convert-doc-file';
import type { AddressPolicy } from '../fetch/address-policy';
import { readGitRepository, type GitSourceLimits } from './read-git-repository';
import type { GitEnvironment } from './run-git';

/**
 * The GitSource of the worker: the git command under the address policy, each file converted to Markdown, a turn of
 * the event loop apart (a repository may hold thousands); a file that cannot be converted is skipped with why.
 */
export class GitCliGitSource implements GitSource {
  constructor(
    private readonly options: {
      policy: AddressPolicy;
      limits?: Partial<GitSourceLimits>;
      tempDir?: string;
      environment?: GitEnvironment;
    },
  ) {}

  async read(request: Parameters<GitSource['read']>[0]): Promise<GitSourceRead> {
    const read = await readGitRepository({ ...this.options, ...request });
    const files: GitDocFile[] = [];
    const skipped = [...read.skipped];
    for (const file of read.files) {
      await nextTurn();
      try {
        files.push({ path: file.path, text: file.text, ...convertDocFile(file.path, file.text, file.format) });
      } catch (error) {
        skipped.push({ path: file.path, reason: `not readable as ${file.format}: ${(error as Error).message}` });
      }
    }
    return { url: read.url, commit: read.commit, files, skipped, ...(read.unchanged ? { unchanged: true } : {}) };
  }
}
