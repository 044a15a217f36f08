import type { CrawlOptions } from '../api/crawl-schemas';
import type { PageValidators } from '../ports';

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
  /**
   * True when the content came from a content landmark (`<main>`, `<article>`, a generator's content root) or is a
   * text file: a code block repeated on most pages of a crawl is then kept (see crawl/repeated-blocks.ts).
   */
  landmark?: boolean;
  /** Set when extraction found no content though the page's body holds text: says how much text was there. */
  lostContent?: string;
  /** What the next crawl sends (If-None-Match, If-Modified-Since) and compares; absent for an error status. */
  validators?: PageValidators;
  /**
   * The page did not change since `known` (HTTP 304, or the same content hash): nothing was extracted, so `markdown`,
   * `title` and `links` are empty.
   */
  unchanged?: boolean;
  /** The server answered a conditional request with 304 Not Modified: no body came, the request cost it little. */
  notModified?: boolean;
}

/** A known page found unchanged by a conditional request, without a load. */
export interface RevalidatedPage {
  /** Where the page ended up after redirects. */
  url: string;
  validators: PageValidators;
  /** The server answered 304 Not Modified: no body came. */
  notModified: boolean;
}

export interface LoadOptions {
  renderer: Renderer;
  signal?: AbortSignal;
  /** The validators of the page's last crawl: the load asks conditionally and compares content hashes. */
  known?: PageValidators;
}

export interface RevalidateOptions {
  renderer: Renderer;
  known: PageValidators;
  signal?: AbortSignal;
}

/**
 * Loads pages for crawls and URL ingestion, refusing addresses the SSRF policy forbids. Each load has its own
 * time budget (PAGE_TIMEOUT_MS), apart from any budget of the crawl. Failures are AppErrors: URL_BLOCKED,
 * URL_UNREACHABLE, UNSUPPORTED_CONTENT or PAGE_FAILED; an HTTP error status is a page, not a failure.
 */
export interface PageLoader {
  load(url: string, options: LoadOptions): Promise<LoadedPage>;
  /**
   * Asks for a known page the way `load` with `known` does (If-None-Match / If-Modified-Since; over HTTP, the content
   * hash too), without extracting or rendering anything: the page when it is unchanged; null when it changed, failed,
   * or cannot be told unchanged short of a render (a browser page without validators). The caller then loads it.
   */
  revalidate(url: string, options: RevalidateOptions): Promise<RevalidatedPage | null>;
  /**
   * A small text file beside the pages (robots.txt, sitemap.xml); a gzipped one (sitemap.xml.gz) is unpacked, within
   * `maxBytes`. Null when it cannot be had or is not 200.
   */
  fetchSiteFile(url: string, options: { maxBytes: number; signal?: AbortSignal }): Promise<string | null>;
}

/** Politeness: spaces the page loads of one host over every worker of the deployment. */
export interface HostThrottle {
  /** Resolves when the caller may load a page from `host`: turns of one host are at least `intervalMs` apart. */
  waitTurn(host: string, intervalMs: number, signal?: AbortSignal): Promise<void>;
  /** Makes the host's current turn `intervalMs` longer without waiting: its next turn comes that much later. */
  extendTurn(host: string, intervalMs: number): Promise<void>;
}

/**
 * Share of a politeness turn a conditional request (If-None-Match / If-Modified-Since) of a known page waits for. When
 * the server answers 304 that is all it costs: headers and no body, a few hundred bytes against a page's tens of
 * kilobytes, so an eighth of a turn is still less load than a page's. When it sends the page after all, the rest of
 * the turn is taken at once, so full pages stay spaced as CRAWL_HOST_PAGES_PER_SECOND says. A robots.txt Crawl-delay
 * is a site's own request and spaces every request in full. (A power of two: `intervalMs` times it is exact.)
 */
export const REVALIDATION_TURN_SHARE = 0.125;

/** The spacing of one host's pages: CRAWL_HOST_PAGES_PER_SECOND, or robots.txt's Crawl-delay (capped) when longer. */
export function hostIntervalMs(
  pagesPerSecond: number,
  crawlDelayMs: number | undefined,
  crawlDelayMaxMs: number,
): number {
  const rate = pagesPerSecond > 0 ? 1000 / pagesPerSecond : 0;
  return Math.ceil(Math.max(rate, Math.min(crawlDelayMs ?? 0, crawlDelayMaxMs)));
}
