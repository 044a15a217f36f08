import type { Readable } from 'node:stream';
import yauzl, { type Entry, type Options, type ZipFile } from 'yauzl';
import type { ArchiveCollector, ArchiveEntryKind } from './archive-collector';
import { archiveInvalid } from './archive-errors';

/**
 * yauzl reads the central directory (never scans for local headers), refuses an absolute or `..` entry name itself,
 * and errors as soon as an entry inflates to more or fewer bytes than its header says.
 */
const ZIP_OPTIONS: Options = {
  lazyEntries: true,
  decodeStrings: true,
  validateEntrySizes: true,
  strictFileNames: false,
};
/** Compression methods yauzl inflates: stored and deflated. */
const READABLE_METHODS = new Set([0, 8]);

/** The file type bits of a Unix mode, kept in the high half of a zip entry's external attributes. */
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;

/**
 * Reads a zip's documentation files into `collector`, one entry at a time: the entry count from the end record before
 * any entry, each entry's path and size checked before it is inflated, its bytes counted as they are inflated.
 */
export async function readZip(
  source: Buffer | string,
  collector: ArchiveCollector,
  signal?: AbortSignal,
): Promise<void> {
  const zipfile = await openZip(source);
  // Between two reads of the central directory nothing waits for an error (closing the file could still say one).
  zipfile.on('error', () => {});
  try {
    collector.expectEntries(zipfile.entryCount);
    for (let entry = await nextEntry(zipfile); entry; entry = await nextEntry(zipfile)) {
      signal?.throwIfAborted();
      const admitted = collector.admit(entry.fileName, zipEntryKind(entry), entry.uncompressedSize);
      if (!admitted) continue;
      if (entry.isEncrypted()) {
        throw archiveInvalid(`its entry '${admitted.path}' is encrypted; upload the archive without a password`);
      }
      if (!READABLE_METHODS.has(entry.compressionMethod)) {
        collector.skip(admitted.path, `compressed by method ${entry.compressionMethod}; only stored and deflated`);
        continue;
      }
      collector.checkClaim(entry.uncompressedSize);
      await collector.read(admitted, await openEntry(zipfile, entry), false);
    }
  } finally {
    zipfile.close();
  }
}

function zipEntryKind(entry: Entry): ArchiveEntryKind {
  if (entry.fileName.endsWith('/')) return 'directory';
  // Archivers that record no Unix mode leave the type bits 0: a plain file.
  const type = (entry.externalFileAttributes >>> 16) & S_IFMT;
  if (type === 0 || type === S_IFREG) return 'file';
  if (type === S_IFDIR) return 'directory';
  if (type === S_IFLNK) return 'symlink';
  return 'special';
}

function openZip(source: Buffer | string): Promise<ZipFile> {
  return new Promise((resolve, reject) => {
    const opened = (error: Error | null | undefined, zipfile: ZipFile | undefined) => {
      if (error || !zipfile) reject(error ?? new Error('yauzl opened no zip file'));
      else resolve(zipfile);
    };
    if (typeof source === 'string') yauzl.open(source, { ...ZIP_OPTIONS, autoClose: true }, opened);
    else yauzl.fromBuffer(source, ZIP_OPTIONS, opened);
  });
}

/** The next entry of the central directory, or null after the last. */
function nextEntry(zipfile: ZipFile): Promise<Entry | null> {
  return new Promise((resolve, reject) => {
    const stop = () => {
      zipfile.off('entry', onEntry);
      zipfile.off('end', onEnd);
      zipfile.off('error', onError);
    };
    const onEntry = (entry: Entry) => {
      stop();
      resolve(entry);
    };
    const onEnd = () => {
      stop();
      resolve(null);
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    zipfile.on('entry', onEntry).on('end', onEnd).on('error', onError);
    zipfile.readEntry();
  });
}

function openEntry(zipfile: ZipFile, entry: Entry): Promise<Readable> {
  return new Promise((resolve, reject) => {
    zipfile.openReadStream(entry, (error, stream) => {
      if (error || !stream) reject(error ?? new Error('yauzl opened no stream'));
      else resolve(stream);
    });
  });
}
