import type { ArchiveContents, ArchiveSite, ArchiveSource, LoadedPage } from '@docshelf/core';
import { decodeDocument } from '../extract/decode-document';
import { inlineExtractor, type PageExtractor } from '../extract/page-extractor';
import { refreshTarget } from '../extract/refresh-target';
import { MAX_REFRESH_REDIRECTS } from '../crawl/chromium.page-loader';
import { convertArchiveFiles, type ArchivePage } from './archive-documents';
import type { ArchiveLimits } from './archive-collector';
import { readArchive } from './read-archive';

const ROOT_PAGES = ['index.html', 'index.htm'];

/**
 * The ArchiveSource of the worker: an upload read in memory under the archive guards (read-archive.ts), its
 * documentation files converted as a git source's are, and its pages served to the crawl's reading as a static HTTP
 * server would serve the folder of its root page, each extracted as a crawl extracts a fetched page.
 */
export class ArchiveSiteSource implements ArchiveSource {
  private readonly extractor: PageExtractor;

  constructor(private readonly deps: { extractor?: PageExtractor; limits?: Partial<ArchiveLimits> } = {}) {
    this.extractor = deps.extractor ?? inlineExtractor;
  }

  async open(archive: Buffer, options: { baseUrl: string; signal?: AbortSignal }): Promise<ArchiveContents> {
    const read = await readArchive(archive, { limits: this.deps.limits, signal: options.signal });
    const documents = await convertArchiveFiles(read);
    const site = documents.pages.length > 0 ? this.siteOf(documents.pages, options.baseUrl) : null;
    return { site, files: documents.files, skipped: documents.skipped };
  }

  private siteOf(pages: ArchivePage[], baseUrl: string): ArchiveSite {
    const root = rootPageOf(pages);
    const folder = root ? root.path.slice(0, root.path.lastIndexOf('/') + 1) : '';
    const byUrl = new Map<string, Buffer>();
    for (const page of pages) {
      if (!page.path.startsWith(folder)) continue;
      byUrl.set(urlOfPath(page.path.slice(folder.length), baseUrl), page.bytes);
    }
    const pageUrls = [...byUrl.keys()];
    const bytesAt = (url: string) => byUrl.get(servedUrl(url) ?? '');
    const extractor = this.extractor;
    return {
      seeds: root ? [urlOfPath(root.path.slice(folder.length), baseUrl)] : pageUrls,
      pages: pageUrls,
      has: (url) => bytesAt(url) !== undefined,
      async load(url, signal) {
        let finalUrl = url;
        let bytes = bytesAt(url);
        if (!bytes) return null;
        let text = decodeDocument(bytes, undefined, true);
        // Immediate meta refreshes inside the archive are followed, as a crawl follows them over HTTP.
        for (let hops = 0; hops < MAX_REFRESH_REDIRECTS; hops++) {
          const target = refreshTarget(text, finalUrl);
          const next = target ? bytesAt(target) : undefined;
          if (!target || !next) break;
          finalUrl = target;
          bytes = next;
          text = decodeDocument(bytes, undefined, true);
        }
        signal?.throwIfAborted();
        const outcome = await extractor.extract({ html: text, url: finalUrl });
        if (!('page' in outcome)) throw new Error('extraction answered that the page needs a browser');
        const extracted = outcome.page;
        const page: LoadedPage = {
          url: finalUrl,
          status: 200,
          renderedWith: 'http',
          text,
          markdown: extracted.markdown,
          title: extracted.title || finalUrl,
          links: extracted.links,
          landmark: extracted.landmark,
          ...(extracted.lostContent ? { lostContent: extracted.lostContent } : {}),
        };
        return page;
      },
    };
  }
}

/** The shallowest index.html (or index.htm) of the archive, the first by path among equals. */
function rootPageOf(pages: ArchivePage[]): ArchivePage | undefined {
  const depth = (path: string) => path.split('/').length;
  const roots = pages.filter((page) => ROOT_PAGES.includes(page.path.slice(page.path.lastIndexOf('/') + 1)));
  return roots.sort(
    (a, b) => depth(a.path) - depth(b.path) || ROOT_PAGES.indexOf(name(a)) - ROOT_PAGES.indexOf(name(b)),
  )[0];
}

const name = (page: ArchivePage) => page.path.slice(page.path.lastIndexOf('/') + 1);

/** A page's URL under the base: its path's segments percent-encoded, as links to it are written. */
function urlOfPath(path: string, baseUrl: string): string {
  return new URL(path.split('/').map(encodeURIComponent).join('/'), baseUrl).href;
}

/**
 * The URL of the file a static server answers for `url`: without query or fragment, a folder's URL as its
 * index.html; undefined for a URL that is not one.
 */
function servedUrl(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    parsed.search = '';
    parsed.hash = '';
    if (parsed.pathname.endsWith('/')) parsed.pathname += 'index.html';
    // The same encoding as urlOfPath's: decoded, then encoded a segment at a time.
    parsed.pathname = parsed.pathname
      .split('/')
      .map((segment) => encodeURIComponent(safeDecode(segment)))
      .join('/');
    return parsed.href;
  } catch {
    return undefined;
  }
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
