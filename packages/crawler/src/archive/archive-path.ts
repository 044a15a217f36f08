import { detectDocFormat, type DocFormat } from '../doc-files/doc-file';
import { unsafeEntryPath } from './archive-errors';

/** How an archive's file is read: a page of a built site, or a documentation file the doc-files converters take. */
export type ArchiveFileFormat = DocFormat | 'html';

/**
 * An entry's name as a path inside the archive (`/`-separated, no `.` or empty parts); a name that is absolute
 * (`/etc/x`, `C:…`, `\\server\…`), climbs with `..` or holds a NUL refuses the whole archive. Backslashes are read as
 * separators, as a Windows extractor would, so `..\evil.md` is refused too.
 */
export function safeEntryPath(name: string): string {
  const slashed = name.replace(/\\/g, '/');
  if (slashed.startsWith('/') || /^[A-Za-z]:/.test(slashed) || slashed.includes('\0')) throw unsafeEntryPath(name);
  const parts = slashed.split('/').filter((part) => part !== '' && part !== '.');
  if (parts.includes('..')) throw unsafeEntryPath(name);
  return parts.join('/');
}

/** The format a file's name says it is in (`.html`, `.htm`, or a documentation file's), or null for anything else. */
export function detectArchiveFileFormat(path: string): ArchiveFileFormat | null {
  if (/[^/]\.html?$/i.test(path)) return 'html';
  return detectDocFormat(path);
}
