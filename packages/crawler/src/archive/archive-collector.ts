import { archiveInvalid, archiveTooLarge } from './archive-errors';
import { detectArchiveFileFormat, safeEntryPath, type ArchiveFileFormat } from './archive-path';

export interface ArchiveLimits {
  /**
   * Bytes the archive may expand to as it is read: all of a tar's stream (every byte is inflated to reach the next
   * entry), a zip's documentation files (its only entries inflated). Reading stops as soon as the running total passes
   * it, whatever the headers claim.
   */
  maxBytes: number;
  /** Entries of any kind: files, folders, links. */
  maxEntries: number;
  /** A documentation file or page larger than this is skipped and reported, not read. */
  maxFileBytes: number;
}

/** A documentation file or page of an archive, as it is stored (a page's charset is its own to declare). */
export interface ArchiveFile {
  /** Its path inside the archive, `/`-separated, e.g. `site/guide/install.html`. */
  path: string;
  format: ArchiveFileFormat;
  bytes: Buffer;
}

export interface SkippedArchiveEntry {
  path: string;
  reason: string;
}

/** What an entry is, as far as reading it goes. */
export type ArchiveEntryKind = 'file' | 'directory' | 'symlink' | 'hardlink' | 'special';

const NOT_READ: Record<Exclude<ArchiveEntryKind, 'file' | 'directory'>, string> = {
  symlink: 'a symbolic link, never followed',
  hardlink: 'a hard link, never followed',
  special: 'a device, FIFO or other special file, never read',
};

/** An entry to read: where it goes and as what. */
export interface AdmittedEntry {
  path: string;
  format: ArchiveFileFormat;
}

/**
 * The bookkeeping of one archive's read, the same for zip and tar: every entry's path checked, the entry count and
 * the running total of expanded bytes held to the limits, and the files kept (a later entry of the same path replaces
 * an earlier one, as extracting would).
 */
export class ArchiveCollector {
  private readonly files = new Map<string, ArchiveFile>();
  private readonly skipped: SkippedArchiveEntry[] = [];
  private entries = 0;
  private expandedBytes = 0;

  constructor(private readonly limits: ArchiveLimits) {}

  /** A zip says how many entries it has before any is read. */
  expectEntries(count: number): void {
    if (count > this.limits.maxEntries) throw this.tooManyEntries();
  }

  /**
   * Whether to read an entry, and as what: null for a folder, a link, a special file or a file that is neither a page
   * nor documentation, and for a documentation file over the size limit of one file. Links, special files and
   * over-size files with a documentation name are reported; others are not documentation and are passed over silently.
   */
  admit(name: string, kind: ArchiveEntryKind, size: number): AdmittedEntry | null {
    this.entries += 1;
    if (this.entries > this.limits.maxEntries) throw this.tooManyEntries();
    const path = safeEntryPath(name);
    if (path === '' || kind === 'directory') return null;
    const format = detectArchiveFileFormat(path);
    if (!format) return null;
    if (kind !== 'file') {
      this.skipped.push({ path, reason: NOT_READ[kind] });
      return null;
    }
    if (size > this.limits.maxFileBytes) {
      this.skipped.push({ path, reason: `larger than ${this.limits.maxFileBytes} bytes (${size})` });
      return null;
    }
    return { path, format };
  }

  /** Reports an entry that is documentation but cannot be read, e.g. one compressed by a method no reader here has. */
  skip(path: string, reason: string): void {
    this.skipped.push({ path, reason });
  }

  /** Refuses, before anything is inflated, an entry whose own header says it would take the total past the limit. */
  checkClaim(size: number): void {
    if (this.expandedBytes + size > this.limits.maxBytes) throw this.tooManyBytes();
  }

  /** Counts bytes just inflated; past the limit the read stops there. */
  countExpanded(bytes: number): void {
    this.expandedBytes += bytes;
    if (this.expandedBytes > this.limits.maxBytes) throw this.tooManyBytes();
  }

  /**
   * Reads an admitted entry's bytes from its stream, counting them towards the total unless the reader counts them
   * upstream (a tar's are counted as they leave gzip). An entry that holds more than the size limit of one file, which
   * its header said it did not, is corrupt.
   */
  async read(entry: AdmittedEntry, stream: AsyncIterable<Buffer>, countedUpstream: boolean): Promise<void> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of stream) {
      if (!countedUpstream) this.countExpanded(chunk.length);
      size += chunk.length;
      if (size > this.limits.maxFileBytes) {
        throw archiveInvalid(`its entry '${entry.path}' holds more bytes than its header says`);
      }
      chunks.push(chunk);
    }
    this.files.set(entry.path, { ...entry, bytes: Buffer.concat(chunks, size) });
  }

  /** The files kept, sorted by path, what was skipped and why, and how many entries the archive had. */
  result(): { files: ArchiveFile[]; skipped: SkippedArchiveEntry[]; entries: number } {
    const files = [...this.files.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return { files, skipped: [...this.skipped], entries: this.entries };
  }

  private tooManyEntries(): Error {
    return archiveTooLarge(`it holds more than ${this.limits.maxEntries} entries`);
  }

  private tooManyBytes(): Error {
    return archiveTooLarge(`it expands to more than ${this.limits.maxBytes} bytes`);
  }
}
