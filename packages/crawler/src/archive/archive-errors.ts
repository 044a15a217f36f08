import { types } from 'node:util';
import { AppError } from '@docshelf/core';

export function archiveInvalid(why: string): AppError {
  return new AppError('ARCHIVE_INVALID', `The archive cannot be read: ${why}`, 400, { retryable: false });
}

/** An entry named to land outside the folder it would be extracted to: the whole archive is refused, none of it read. */
export function unsafeEntryPath(name: string): AppError {
  return archiveInvalid(
    `its entry '${name}' leads outside the archive (an absolute path, a drive letter or '..'); nothing of it was read`,
  );
}

export function archiveTooLarge(why: string): AppError {
  return new AppError('ARCHIVE_TOO_LARGE', `The archive is too large: ${why}`, 400, { retryable: false });
}

/** What yauzl says of an entry name that is absolute or climbs out with `..` (it refuses such an archive itself). */
const ZIP_UNSAFE_NAME = /^(?:invalid relative path|absolute path|invalid characters in fileName): ([\s\S]*)$/;
/** Errors of our own code, not of the archive's bytes (by name: Node's own errors may come from another realm). */
const NOT_THE_ARCHIVE = new Set(['TypeError', 'RangeError', 'ReferenceError', 'SyntaxError', 'AbortError']);

/**
 * A failure of reading an archive as the error the API answers: what the zip, tar and gzip readers say of bytes they
 * cannot read (a bad header, a truncated stream, corrupt deflate data) as ARCHIVE_INVALID; an error of ours, a system
 * error (`ENOENT`, …) and a programming error go through as they are.
 */
export function toArchiveError(error: unknown): Error {
  if (error instanceof AppError) return error;
  if (!(error instanceof Error || types.isNativeError(error))) return new Error(String(error));
  if (NOT_THE_ARCHIVE.has(error.name)) return error;
  const code = (error as NodeJS.ErrnoException).code;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return error;
  const unsafe = ZIP_UNSAFE_NAME.exec(error.message);
  if (unsafe) return unsafeEntryPath(unsafe[1]!);
  if (code === 'Z_BUF_ERROR' || /unexpected end/i.test(error.message)) {
    return archiveInvalid(`it ends too early (truncated): ${error.message}`);
  }
  return archiveInvalid(error.message);
}
