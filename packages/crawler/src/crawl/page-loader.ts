import { AppError } from '@docshelf/core';
import type { CrawlOptions } from '@docshelf/core';
import type { AddressPolicy } from '../fetch/address-policy';
import { BlockedUrlError } from '../fetch/address-policy';
import { FetchFailedError, safeFetch } from '../fetch/safe-fetch';
import type { BrowserPool } from '../browser/browser-pool';
import { needsBrowser } from '../extract/needs-browser';

export interface LoadedPage {
  /** Where the page ended up after redirects. */
  url: string;
  status: number;
  contentType: string;
  text: string;
  renderedWith: 'browser' | 'http';
}

export interface PageLoaderDeps {
  policy: AddressPolicy;
  /** Started on first use, so processes that never render never launch Chromium. */
  browser: () => BrowserPool;
  timeoutMs: number;
}

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
const TEXT_TYPES = new Set(['text/plain', 'text/markdown', 'text/x-markdown']);

export const isHtml = (contentType: string) => HTML_TYPES.has(contentType) || contentType === '';

/** Loads a page over plain HTTP or in Chromium, as the renderer option asks; failures become AppErrors. */
export async function loadPage(deps: PageLoaderDeps, url: string, renderer: CrawlOptions['renderer']): Promise<LoadedPage> {
  try {
    if (renderer === 'browser') return await renderInBrowser(deps, url);
    const fetched = await fetchOverHttp(deps, url);
    if (renderer === 'auto' && fetched.status < 400 && isHtml(fetched.contentType) && needsBrowser(fetched.text)) {
      return await renderInBrowser(deps, url);
    }
    return fetched;
  } catch (error) {
    throw toPageError(error);
  }
}

async function fetchOverHttp(deps: PageLoaderDeps, url: string): Promise<LoadedPage> {
  const response = await safeFetch(url, { policy: deps.policy, timeoutMs: deps.timeoutMs });
  if (!isHtml(response.contentType) && !TEXT_TYPES.has(response.contentType)) {
    throw new AppError('UNSUPPORTED_CONTENT', `unsupported content type ${response.contentType}`, 422, { retryable: false });
  }
  return {
    url: response.url,
    status: response.status,
    contentType: response.contentType,
    text: response.body.toString('utf8'),
    renderedWith: 'http',
  };
}

async function renderInBrowser(deps: PageLoaderDeps, url: string): Promise<LoadedPage> {
  const page = await deps.browser().render(url, { timeoutMs: deps.timeoutMs });
  return { url: page.url, status: page.status, contentType: 'text/html', text: page.html, renderedWith: 'browser' };
}

/** A page that cannot be fetched is a client-side problem of the URL (400), never a retryable server fault. */
export function toPageError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof BlockedUrlError) return new AppError('URL_BLOCKED', error.message, 400, { retryable: false });
  if (error instanceof FetchFailedError) return new AppError('URL_UNREACHABLE', error.message, 400, { retryable: false });
  const message = error instanceof Error ? error.message.split('\n')[0]! : String(error);
  return new AppError('PAGE_FAILED', message, 400, { retryable: false });
}
