/** One documentation file of a repository, converted to the Markdown the chunker reads. */
export interface GitDocFile {
  /** The file's path in the repository, e.g. `docs/guide/install.md`. */
  path: string;
  /** Its first heading, front matter title or name. */
  title: string;
  markdown: string;
  /** The file's text as stored, for its content hash. */
  text: string;
}

export interface GitSourceRead {
  /** The repository's URL after redirects. */
  url: string;
  /** The commit read. */
  commit: string;
  files: GitDocFile[];
  /** Files selected but not read, with why. */
  skipped: { path: string; reason: string }[];
  /** The ref is still at `unlessCommit`: nothing was fetched, `files` is empty. */
  unchanged?: boolean;
}

/**
 * Reads the documentation files of one commit of a git remote: the SSRF policy, the size limits and the sandboxing of
 * git are the adapter's; failures are AppErrors (URL_BLOCKED, URL_UNREACHABLE, NOT_A_REPOSITORY, REF_NOT_FOUND,
 * REPOSITORY_TOO_LARGE).
 */
export interface GitSource {
  read(request: {
    repoUrl: string;
    ref?: string;
    paths?: string[];
    /** When the ref is at this commit, answers `unchanged` without fetching it (a refresh's cheap look). */
    unlessCommit?: string;
    signal?: AbortSignal;
  }): Promise<GitSourceRead>;
}
