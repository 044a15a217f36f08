import { AppError } from '@docshelf/core';
import { BlockedUrlError } from '../fetch/address-policy';
import { FetchFailedError } from '../fetch/fetch-failed-error';
import { GitCommandError, GitFolderTooLargeError } from './run-git';

/** What git's fetch prints when the ref is none of the remote's (a name, or a commit it does not have). */
const UNKNOWN_REF =
  /couldn't find remote ref|not our ref|unadvertised object|no such remote ref|could not find remote ref|invalid refspec|upload-pack: not our/i;
/** What git prints when it cannot reach the remote at all. */
const UNREACHABLE = /could not resolve|failed to connect|connection (refused|reset|timed out)|timed out|ssl|tls/i;

export function notARepository(repoUrl: string, why: string): AppError {
  return new AppError('NOT_A_REPOSITORY', `${repoUrl} is not a git repository: ${why}`, 400, { retryable: false });
}

export function refNotFound(repoUrl: string, ref: string): AppError {
  return new AppError('REF_NOT_FOUND', `${repoUrl} has no branch, tag or commit '${ref}'`, 400, { retryable: false });
}

export function readTooLong(repoUrl: string, timeoutMs: number): AppError {
  return new AppError('URL_UNREACHABLE', `reading ${repoUrl} took longer than ${timeoutMs} ms`, 400, {
    retryable: false,
  });
}

export function repositoryTooLarge(repoUrl: string, why: string): AppError {
  return new AppError('REPOSITORY_TOO_LARGE', `${repoUrl} is too large: ${why}`, 400, { retryable: false });
}

/**
 * A failure of reading a git remote as the error the API answers: refused and unreachable URLs as a crawl's pages
 * are, an unknown ref, a repository over the limits, and anything else git says as a repository that cannot be read;
 * an error of ours goes through as it is.
 */
export function toGitSourceError(error: unknown, repoUrl: string, ref: string): Error {
  if (error instanceof AppError) return error;
  if (error instanceof BlockedUrlError) return new AppError('URL_BLOCKED', error.message, 400, { retryable: false });
  if (error instanceof FetchFailedError) {
    return new AppError('URL_UNREACHABLE', error.message, 400, { retryable: error.kind === 'connection-reset' });
  }
  if (error instanceof GitFolderTooLargeError) return repositoryTooLarge(repoUrl, error.message);
  if (error instanceof GitCommandError) {
    const said = error.stderr.trim().split('\n').filter(Boolean).pop() ?? '';
    if (UNKNOWN_REF.test(error.stderr)) return refNotFound(repoUrl, ref);
    if (UNREACHABLE.test(error.stderr)) {
      return new AppError('URL_UNREACHABLE', `git could not reach ${repoUrl}: ${said}`, 400, { retryable: false });
    }
    return notARepository(repoUrl, `git could not read it: ${said}`);
  }
  return error instanceof Error ? error : new Error(String(error));
}
