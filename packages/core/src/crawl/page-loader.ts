import type { CrawlOptions } from '../api/crawl-schemas';

export type Renderer = CrawlOptions['renderer'];

/** One page as fetched or rendered, with its main content already extracted. */
export interface LoadedPage {
  /** Where the page ended up after redirects. */
  url: string;
  status: number;
  renderedWith: 'browser' | 'http';
  /** The body as text (an llms.txt is parsed from this). */
  text: string;
  /** The main content as markdown: extracted from HTML without navigation and other chrome, or the text itself. */
  markdown: string;
  title: string;
  /** Same-origin page links, normalised, in document order. */
  links: string[];
}

/**
 * Loads pages for crawls and URL ingestion, refusing addresses the SSRF policy forbids. Each load has its own
 * time budget (PAGE_TIMEOUT_MS), apart from any budget of the crawl. Failures are AppErrors: URL_BLOCKED,
 * URL_UNREACHABLE, UNSUPPORTED_CONTENT or PAGE_FAILED; an HTTP error status is a page, not a failure.
 */
export interface PageLoader {
  load(url: string, options: { renderer: Renderer; signal?: AbortSignal }): Promise<LoadedPage>;
  /** A small text file beside the pages (robots.txt, sitemap.xml); null when it cannot be had or is not 200. */
  fetchSiteFile(url: string, options: { maxBytes: number; signal?: AbortSignal }): Promise<string | null>;
}
