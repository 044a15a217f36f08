import { AppError, type LoadedPage, type PageLoader, type Renderer } from '@docshelf/core';
import type { BrowserPool } from '../browser/browser-pool';
import { extractPage } from '../extract/extract-page';
import { needsBrowser } from '../extract/needs-browser';
import { BlockedUrlError, type AddressPolicy } from '../fetch/address-policy';
import { FetchFailedError, safeFetch } from '../fetch/safe-fetch';

export interface ChromiumPageLoaderDeps {
  policy: AddressPolicy;
  /** Started on first use, so processes that never render never launch Chromium. */
  browser: () => BrowserPool;
  /** Budget of one page: fetch or render, redirects included (PAGE_TIMEOUT_MS). */
  timeoutMs: number;
}

interface RawPage {
  url: string;
  status: number;
  contentType: string;
  text: string;
  renderedWith: 'browser' | 'http';
}

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
const TEXT_TYPES = new Set(['text/plain', 'text/markdown', 'text/x-markdown']);
const SITE_FILE_TIMEOUT_MS = 10_000;

const isHtml = (contentType: string) => HTML_TYPES.has(contentType) || contentType === '';

/** The PageLoader of the worker: the SSRF-checked fetch, Chromium for rendering, cheerio and turndown for extraction. */
export class ChromiumPageLoader implements PageLoader {
  constructor(private readonly deps: ChromiumPageLoaderDeps) {}

  async load(url: string, options: { renderer: Renderer; signal?: AbortSignal }): Promise<LoadedPage> {
    try {
      return toLoadedPage(await this.loadRaw(url, options.renderer, options.signal));
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      throw toPageError(error);
    }
  }

  async fetchSiteFile(url: string, options: { maxBytes: number; signal?: AbortSignal }): Promise<string | null> {
    try {
      const timeoutMs = Math.min(SITE_FILE_TIMEOUT_MS, this.deps.timeoutMs);
      const response = await safeFetch(url, { policy: this.deps.policy, timeoutMs, maxBytes: options.maxBytes, signal: options.signal });
      return response.status === 200 ? response.body.toString('utf8') : null;
    } catch {
      return null;
    }
  }

  private async loadRaw(url: string, renderer: Renderer, signal?: AbortSignal): Promise<RawPage> {
    if (renderer === 'browser') return this.render(url, signal);
    const fetched = await this.fetchOverHttp(url, signal);
    if (renderer === 'auto' && fetched.status < 400 && isHtml(fetched.contentType) && needsBrowser(fetched.text)) {
      return this.render(url, signal);
    }
    return fetched;
  }

  private async fetchOverHttp(url: string, signal?: AbortSignal): Promise<RawPage> {
    const response = await safeFetch(url, { policy: this.deps.policy, timeoutMs: this.deps.timeoutMs, signal });
    if (!isHtml(response.contentType) && !TEXT_TYPES.has(response.contentType)) {
      throw new AppError('UNSUPPORTED_CONTENT', `unsupported content type ${response.contentType}`, 422, { retryable: false });
    }
    return { url: response.url, status: response.status, contentType: response.contentType, text: response.body.toString('utf8'), renderedWith: 'http' };
  }

  private async render(url: string, signal?: AbortSignal): Promise<RawPage> {
    const page = await this.deps.browser().render(url, { timeoutMs: this.deps.timeoutMs, signal });
    return { url: page.url, status: page.status, contentType: 'text/html', text: page.html, renderedWith: 'browser' };
  }
}

/** HTML is extracted to markdown; markdown and plain text are the content as they are. */
function toLoadedPage(page: RawPage): LoadedPage {
  const { url, status, renderedWith, text } = page;
  if (isHtml(page.contentType)) {
    const extracted = extractPage(text, url);
    return { url, status, renderedWith, text, markdown: extracted.markdown, title: extracted.title || url, links: extracted.links };
  }
  const heading = /^#\s+(.+)$/m.exec(text)?.[1]?.trim();
  const title = heading ?? new URL(url).pathname.split('/').filter(Boolean).pop() ?? url;
  return { url, status, renderedWith, text, markdown: text, title, links: [] };
}

/** A page that cannot be fetched is a client-side problem of the URL (400), never a retryable server fault. */
export function toPageError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof BlockedUrlError) return new AppError('URL_BLOCKED', error.message, 400, { retryable: false });
  if (error instanceof FetchFailedError) return new AppError('URL_UNREACHABLE', error.message, 400, { retryable: false });
  const message = error instanceof Error ? error.message.split('\n')[0]! : String(error);
  return new AppError('PAGE_FAILED', message, 400, { retryable: false });
}
