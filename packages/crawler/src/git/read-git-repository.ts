import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gitRefSchema } from '@docshelf/core';
import type { AddressPolicy } from '../fetch/address-policy';
import type { DocFormat } from '../doc-files/doc-file';
import { readTooLong, refNotFound, repositoryTooLarge, toGitSourceError } from './git-errors';
import { readTreeFiles, selectTreeFiles } from './git-files';
import { discoverGitRemote } from './git-remote';
import { measureFolder, runGit, type GitEnvironment, type GitSandbox } from './run-git';

/** The docs folder(s) and every README, when a request names no `paths`. */
export const DEFAULT_GIT_PATHS = ['docs/**', 'doc/**', 'documentation/**', '**/README.*'];

export interface GitSourceLimits {
  /** Bytes the fetched repository may take on disk; git is stopped past them. */
  maxBytes: number;
  /** Entries of the commit's tree. */
  maxFiles: number;
  /** A selected file larger than this is skipped and reported, not read. */
  maxFileBytes: number;
  /** For the whole read: discovery, fetch and reading the files. */
  timeoutMs: number;
}

/** 100 MB fetched, 100,000 files, 2 MB a file (the longest handwritten pages are a few hundred kB), 2 minutes. */
export const DEFAULT_GIT_LIMITS: GitSourceLimits = {
  maxBytes: 100 * 1024 * 1024,
  maxFiles: 100_000,
  maxFileBytes: 2 * 1024 * 1024,
  timeoutMs: 120_000,
};

export interface ReadGitRepositoryOptions {
  repoUrl: string;
  /** A branch, a tag or a full commit id; the remote's HEAD when absent. */
  ref?: string;
  /** Globs of the repository's paths to read (DEFAULT_GIT_PATHS when absent or empty). */
  paths?: readonly string[];
  policy: AddressPolicy;
  limits?: Partial<GitSourceLimits>;
  signal?: AbortSignal;
  /** Where the temporary clone goes (the OS's temp folder by default); it is removed whatever happens. */
  tempDir?: string;
  /** What git gets of the service's environment (the configuration's `git.environment`). */
  environment?: GitEnvironment;
  /** When the remote's ref is at this commit, nothing is fetched: the read says `unchanged`. */
  unlessCommit?: string;
}

export interface GitRepositoryFile {
  path: string;
  format: DocFormat;
  text: string;
}

export interface GitRepositoryRead {
  /** The repository's URL, after any redirect. */
  url: string;
  /** The commit read. */
  commit: string;
  files: GitRepositoryFile[];
  skipped: { path: string; reason: string }[];
  /** The ref was still at `unlessCommit`: nothing was fetched. */
  unchanged?: boolean;
}

/** A full commit id, as a ref: it names itself. */
const COMMIT_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/**
 * The commit the remote's `ref` is at, from its ref advertisement (`git ls-remote`, through the same pinned, sandboxed
 * git as the fetch), looked up as git's fetch resolves a name: a tag (peeled to its commit) before a branch; null when
 * no ref has that name (the fetch then says so).
 */
async function remoteCommitOf(
  remoteUrl: string,
  ref: string,
  run: Parameters<typeof runGit>[1],
): Promise<string | null> {
  if (COMMIT_ID.test(ref)) return ref;
  const listed = (await runGit(['ls-remote', '--end-of-options', remoteUrl, ref], run)).stdout.toString();
  const refs = new Map(
    listed
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split('\t') as [string, string])
      .map(([commit, name]) => [name, commit]),
  );
  const names = ref === 'HEAD' ? ['HEAD'] : [`refs/tags/${ref}^{}`, `refs/tags/${ref}`, `refs/heads/${ref}`, ref];
  return names.map((name) => refs.get(name)).find((commit) => commit !== undefined) ?? null;
}

/**
 * The Markdown, MDX and reStructuredText files of one commit of an http(s) git remote: its host and every redirect
 * checked by the address policy, a shallow fetch of that commit alone (no hooks, submodules, LFS objects or user
 * configuration; git connects to the address the policy checked) within the size, file and time limits.
 */
export async function readGitRepository(options: ReadGitRepositoryOptions): Promise<GitRepositoryRead> {
  const limits = { ...DEFAULT_GIT_LIMITS, ...options.limits };
  const ref = options.ref ?? 'HEAD';
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  // The ref also goes after `--end-of-options`; the request's schema keeps out what git could read as an option.
  if (!gitRefSchema.safeParse(ref).success) throw refNotFound(options.repoUrl, ref);
  const work = await fs.mkdtemp(path.join(options.tempDir ?? os.tmpdir(), 'docshelf-git-'));
  try {
    const remote = await discoverGitRemote(options.repoUrl, options.policy, { timeoutMs: limits.timeoutMs, signal });
    const sandbox: GitSandbox = {
      home: path.join(work, 'home'),
      hooks: path.join(work, 'hooks'),
      pin: remote.pin,
      environment: options.environment,
    };
    const repository = path.join(work, 'repository');
    await Promise.all([sandbox.home, sandbox.hooks, repository].map((dir) => fs.mkdir(dir)));
    const run = { cwd: repository, sandbox, signal };
    await runGit(['init', '--quiet', '--bare', '--template='], run);
    if (options.unlessCommit && (await remoteCommitOf(remote.url, ref, run)) === options.unlessCommit) {
      return { url: remote.url, commit: options.unlessCommit, files: [], skipped: [], unchanged: true };
    }
    await runGit(
      ['fetch', '--quiet', '--depth=1', '--no-tags', '--no-recurse-submodules', '--end-of-options', remote.url, ref],
      { ...run, watch: { dir: repository, maxBytes: limits.maxBytes } },
    );
    // A pack written between two of the watch's looks is measured once more.
    if ((await measureFolder(repository)) > limits.maxBytes) {
      throw repositoryTooLarge(options.repoUrl, `more than ${limits.maxBytes} bytes`);
    }
    const commit = (await runGit(['rev-parse', '--verify', 'FETCH_HEAD^{commit}'], run)).stdout.toString().trim();
    const paths = options.paths && options.paths.length > 0 ? options.paths : DEFAULT_GIT_PATHS;
    const selection = await selectTreeFiles(paths, limits.maxFileBytes, run);
    if (selection.entries > limits.maxFiles) {
      throw repositoryTooLarge(options.repoUrl, `${selection.entries} files, more than ${limits.maxFiles}`);
    }
    const texts = await readTreeFiles(selection.files, run);
    const files = selection.files.map(({ path: file, format }) => ({ path: file, format, text: texts.get(file)! }));
    return { url: remote.url, commit, files, skipped: selection.skipped };
  } catch (error) {
    // A cancelled job ends with its cancellation, not with an error of the repository.
    if (options.signal?.aborted) throw options.signal.reason;
    if (deadline.aborted) throw readTooLong(options.repoUrl, limits.timeoutMs);
    throw toGitSourceError(error, options.repoUrl, ref);
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
}
