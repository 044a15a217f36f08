import { setImmediate as nextTurn } from 'node:timers/promises';
import { convertDocFile } from '../doc-files/convert-doc-file';
import type { ArchiveFile, SkippedArchiveEntry } from './archive-collector';

/**
 * A Markdown, MDX or reStructuredText file of an archive as the chunker reads it: the shape of a git source's file
 * (core's `GitDocFile`), so the same chunking takes both.
 */
export interface ArchiveDocFile {
  /** Its path inside the archive. */
  path: string;
  /** Its first heading, front matter title or name. */
  title: string;
  markdown: string;
  /** Its text as stored (UTF-8), for its content hash. */
  text: string;
}

/** A page of a built site as stored: its bytes go through a crawl's extraction, which reads their charset. */
export interface ArchivePage {
  path: string;
  bytes: Buffer;
}

export interface ArchiveDocuments {
  files: ArchiveDocFile[];
  pages: ArchivePage[];
  /** What the read skipped, and the documentation files that could not be converted, each with why. */
  skipped: SkippedArchiveEntry[];
}

/**
 * An archive's read split for ingestion: its documentation files converted to Markdown (UTF-8, a byte-order mark
 * dropped, as a git source's), a turn of the event loop apart (an archive may hold thousands), and its pages left as
 * they are for the extraction; a file that cannot be converted is skipped with why.
 */
export async function convertArchiveFiles(read: {
  files: readonly ArchiveFile[];
  skipped: readonly SkippedArchiveEntry[];
}): Promise<ArchiveDocuments> {
  const documents: ArchiveDocuments = { files: [], pages: [], skipped: [...read.skipped] };
  for (const file of read.files) {
    if (file.format === 'html') {
      documents.pages.push({ path: file.path, bytes: file.bytes });
      continue;
    }
    await nextTurn();
    const text = file.bytes.toString('utf8').replace(/^\uFEFF/, '');
    try {
      documents.files.push({ path: file.path, text, ...convertDocFile(file.path, text, file.format) });
    } catch (error) {
      documents.skipped.push({
        path: file.path,
        reason: `not readable as ${file.format}: ${(error as Error).message}`,
      });
    }
  }
  return documents;
}
