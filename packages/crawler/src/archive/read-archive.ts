import { ArchiveCollector, type ArchiveFile, type ArchiveLimits, type SkippedArchiveEntry } from './archive-collector';
import { archiveInvalid, toArchiveError } from './archive-errors';
import { detectArchiveKind, readArchiveHead, type ArchiveKind } from './archive-kind';
import { readTar } from './read-tar';
import { readZip } from './read-zip';

export type { ArchiveFile, ArchiveLimits, SkippedArchiveEntry } from './archive-collector';
export type { ArchiveFileFormat } from './archive-path';
export type { ArchiveKind } from './archive-kind';

/**
 * 200 MiB expanded (a large built docs site with its images and scripts is tens of MB; what is kept is held in memory
 * once), 100,000 entries (as a git source's files), 10 MiB a file (a crawl's `PAGE_MAX_BYTES`, so a page of a built
 * site is read as crawling it would be).
 */
export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = {
  maxBytes: 200 * 1024 * 1024,
  maxEntries: 100_000,
  maxFileBytes: 10 * 1024 * 1024,
};

export interface ReadArchiveOptions {
  limits?: Partial<ArchiveLimits>;
  signal?: AbortSignal;
}

export interface ArchiveRead {
  /** The kind its first bytes say it is, whatever its name. */
  kind: ArchiveKind;
  /** Its pages (`.html`, `.htm`) and documentation files (Markdown, MDX, reStructuredText), sorted by path. */
  files: ArchiveFile[];
  /** Documentation files not read, with why: links, special files, files over the size limit of one file. */
  skipped: SkippedArchiveEntry[];
  /** Entries of every kind. */
  entries: number;
}

/**
 * The pages and documentation files of an uploaded .zip, .tar.gz or .tar (in memory, or a file's path), read in
 * memory and never written anywhere: an entry path that is absolute or climbs with `..` refuses the whole archive
 * (ARCHIVE_INVALID), links and special files are skipped, and the read stops as soon as the entries or the expanded
 * bytes pass the limits (ARCHIVE_TOO_LARGE). Bytes that are not an archive, a truncated or corrupt one and an
 * encrypted zip are ARCHIVE_INVALID.
 */
export async function readArchive(source: Buffer | string, options: ReadArchiveOptions = {}): Promise<ArchiveRead> {
  const collector = new ArchiveCollector({ ...DEFAULT_ARCHIVE_LIMITS, ...options.limits });
  const kind = detectArchiveKind(await readArchiveHead(source));
  if (!kind) throw archiveInvalid('it is not a .zip, .tar.gz or .tar file');
  try {
    if (kind === 'zip') await readZip(source, collector, options.signal);
    else await readTar(source, kind === 'tar.gz', collector, options.signal);
  } catch (error) {
    // A cancelled job ends with its cancellation, not with an error of the archive.
    if (options.signal?.aborted) throw options.signal.reason;
    throw toArchiveError(error);
  }
  return { kind, ...collector.result() };
}
