import type { LoadedPage } from '../crawl/page-loader';
import type { GitDocFile } from './git-source';

/** A built site inside an archive, whose pages load as a crawl loads them over HTTP. */
export interface ArchiveSite {
  /** Where a crawl of the site starts: its root page (the shallowest index.html), or every page when it has none. */
  seeds: string[];
  /** The URL of every page of the archive, in path order. */
  pages: string[];
  /** Whether the archive has a page at this URL (a link inside the site). */
  has(url: string): boolean;
  /**
   * The page at this URL, extracted as a crawl extracts a page it fetched (its immediate meta refreshes followed
   * inside the archive); null when the archive has no page there.
   */
  load(url: string, signal?: AbortSignal): Promise<LoadedPage | null>;
}

export interface ArchiveContents {
  /** The pages of a built site, under the base URL asked for; null when the archive has no HTML page. */
  site: ArchiveSite | null;
  /** Its Markdown, MDX and reStructuredText files, converted to the Markdown the chunker reads, by path. */
  files: GitDocFile[];
  /** Files not read, with why (links, special files, too large, not readable as their format). */
  skipped: { path: string; reason: string }[];
}

/**
 * Opens an uploaded .zip, .tar.gz or .tar: the guards against traversal, links and bombs are the adapter's; failures
 * are AppErrors (ARCHIVE_INVALID, ARCHIVE_TOO_LARGE).
 */
export interface ArchiveSource {
  open(archive: Buffer, options: { baseUrl: string; signal?: AbortSignal }): Promise<ArchiveContents>;
}
