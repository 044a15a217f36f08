import { chunkMarkdown, type ChunkInput } from '@docshelf/core';
import { extractPage } from '../extract/extract-page';
import { isHtml, type LoadedPage } from './page-loader';

export interface ChunkedPage {
  title: string;
  chunks: ChunkInput[];
  links: string[];
}

/** HTML is extracted to markdown first; markdown and plain text are chunked as they are. */
export function chunkLoadedPage(page: LoadedPage): ChunkedPage {
  if (isHtml(page.contentType)) {
    const extracted = extractPage(page.text, page.url);
    const title = extracted.title || page.url;
    return { title, chunks: chunkMarkdown(extracted.markdown, { pageUrl: page.url, pageTitle: title }), links: extracted.links };
  }
  const heading = /^#\s+(.+)$/m.exec(page.text)?.[1]?.trim();
  const title = heading ?? new URL(page.url).pathname.split('/').filter(Boolean).pop() ?? page.url;
  return { title, chunks: chunkMarkdown(page.text, { pageUrl: page.url, pageTitle: title }), links: [] };
}
