import type { GitSource, GitSourceRead } from '@docshelf/core';
import { convertDocFile } from '../doc-files/convert-doc-file';
import type { AddressPolicy } from '../fetch/address-policy';
import { readGitRepository, type GitSourceLimits } from './read-git-repository';

/** The GitSource of the worker: the git command under the address policy, each file converted to Markdown. */
export class GitCliGitSource implements GitSource {
  constructor(
    private readonly options: { policy: AddressPolicy; limits?: Partial<GitSourceLimits>; tempDir?: string },
  ) {}

  async read(request: Parameters<GitSource['read']>[0]): Promise<GitSourceRead> {
    const read = await readGitRepository({ ...this.options, ...request });
    const files = read.files.map((file) => ({
      path: file.path,
      text: file.text,
      ...convertDocFile(file.path, file.text, file.format),
    }));
    return { url: read.url, commit: read.commit, files, skipped: read.skipped };
  }
}
