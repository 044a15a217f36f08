import { chunkMarkdown, chunkMarkdownInTurns } from '../chunking/chunk-markdown';
import type { ChunkInput } from '../domain/types';
import { chunkLlmsTxt } from '../llms-txt/chunk-llms-txt';
import { parseLlmsTxt } from '../llms-txt/parse-llms-txt';
import type { LoadedPage } from './page-loader';

/** A loaded page's main content in ~500-word chunks titled by the page and nearest heading. */
export function chunkLoadedPage(page: LoadedPage): Promise<ChunkInput[]> {
  return chunkMarkdownInTurns(page.markdown, { pageUrl: page.url, pageTitle: page.title });
}

/** An llms.txt by its structure; a file without the H1 that llms.txt requires is still documentation: chunked as markdown. */
export function chunkLlmsTxtPage(page: LoadedPage): ChunkInput[] {
  try {
    return chunkLlmsTxt(parseLlmsTxt(page.text), page.url);
  } catch {
    return chunkMarkdown(page.text, { pageUrl: page.url, pageTitle: page.url });
  }
}
