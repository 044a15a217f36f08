import { createHash } from 'node:crypto';
import {
  AppError,
  type LoadedPage,
  type LoadOptions,
  type PageLoader,
  type PageValidators,
  type Renderer,
  type RevalidatedPage,
  type RevalidateOptions,
} from '@docshelf/core';
import type { BrowserPool } from '../browser/browser-pool';
import { decodeDocument } from '../extract/decode-document';
import type { ExtractedPage } from '../extract/extract-page';
import { inlineExtractor, type PageExtractor } from '../extract/page-extractor';
import { BlockedUrlError, type AddressPolicy } from '../fetch/address-policy';
import { refreshTarget } from '../extract/refresh-target';
import { gunzipFile } from '../fetch/gunzip-file';
import { FetchFailedError, safeFetch, type SafeResponse } from '../fetch/safe-fetch';

export interface ChromiumPageLoaderDeps {
  policy: AddressPolicy;
  /** Started on first use, so processes that never render never launch Chromium. */
  browser: () => BrowserPool;
  /** Budget of one page: fetch or render, redirects included (PAGE_TIMEOUT_MS). */
  timeoutMs: number;
  /** Limit on a page's body (PAGE_MAX_BYTES): a larger or endless response fails the page. */
  maxBytes?: number;
  /** Where pages are extracted (threads, CRAWL_EXTRACT_THREADS); inline by default. */
  extractor?: PageExtractor;
}

interface RawPage {
  url: string;
  status: number;
  contentType: string;
  text: string;
  renderedWith: 'browser' | 'http';
  /** The response as fetched over HTTP, handed to the browser when the page turns out to need one. */
  response?: SafeResponse;
  /** Response headers of the document, lower-cased names. */
  headers: Record<string, string>;
  /** Already extracted (auto mode extracts what it fetched while it checks whether the page needs a browser). */
  extracted?: ExtractedPage;
}

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
const TEXT_TYPES = new Set(['text/plain', 'text/markdown', 'text/x-markdown']);
const SITE_FILE_TIMEOUT_MS = 10_000;
/** Client-side redirects (an immediate `<meta http-equiv="refresh">`) followed over HTTP, as safeFetch follows 3xx. */
export const MAX_REFRESH_REDIRECTS = 5;

const isHtml = (contentType: string) => HTML_TYPES.has(contentType) || contentType === '';

/** The PageLoader of the worker: the SSRF-checked fetch, Chromium for rendering, cheerio and turndown for extraction. */
export class ChromiumPageLoader implements PageLoader {
  private readonly extractor: PageExtractor;

  constructor(private readonly deps: ChromiumPageLoaderDeps) {
    this.extractor = deps.extractor ?? inlineExtractor;
  }

  async load(url: string, options: LoadOptions): Promise<LoadedPage> {
    try {
      const raw = await this.loadRaw(url, options.renderer, options.signal, options.known);
      // An error page is not content: no caller extracts what it says.
      if (raw.status >= 400)
        return {
          url: raw.url,
          status: raw.status,
          renderedWith: raw.renderedWith,
          text: raw.text,
          markdown: '',
          title: '',
          links: [],
        };
      const validators = validatorsOf(raw, options.known);
      if (options.known && (raw.status === 304 || validators.contentHash === options.known.contentHash)) {
        const notModified = raw.status === 304;
        return {
          url: raw.url,
          status: 200,
          renderedWith: raw.renderedWith,
          text: '',
          markdown: '',
          title: '',
          links: [],
          validators,
          unchanged: true,
          notModified,
        };
      }
      return { ...(await this.toLoadedPage(raw)), validators };
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      throw toPageError(error);
    }
  }

  async revalidate(url: string, options: RevalidateOptions): Promise<RevalidatedPage | null> {
    const { renderer, known, signal } = options;
    // A rendered page's hash is of its rendered HTML: only a 304 tells it unchanged without a render.
    const conditional = Boolean(known.etag || known.lastModified);
    if (renderer === 'browser' && !conditional) return null;
    try {
      const fetched = await this.fetchPage(url, signal, known);
      const notModified = fetched.status === 304;
      if (
        !notModified &&
        (renderer === 'browser' || fetched.status >= 400 || hashOf(fetched.text) !== known.contentHash)
      )
        return null;
      return { url: fetched.url, validators: validatorsOf(fetched, known), notModified };
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      return null;
    }
  }

  async fetchSiteFile(url: string, options: { maxBytes: number; signal?: AbortSignal }): Promise<string | null> {
    try {
      const timeoutMs = Math.min(SITE_FILE_TIMEOUT_MS, this.deps.timeoutMs);
      const response = await safeFetch(url, {
        policy: this.deps.policy,
        timeoutMs,
        maxBytes: options.maxBytes,
        signal: options.signal,
      });
      return response.status === 200 ? (await gunzipFile(response.body, options.maxBytes)).toString('utf8') : null;
    } catch {
      return null;
    }
  }

  /**
   * With `known` validators the page is asked for conditionally over HTTP first, in every renderer: a 304 (or, short
   * of rendering, the same body) means unchanged; a changed page is then fetched or rendered as usual.
   */
  private async loadRaw(
    url: string,
    renderer: Renderer,
    signal?: AbortSignal,
    known?: PageValidators,
  ): Promise<RawPage> {
    if (renderer === 'browser') {
      if (known?.etag || known?.lastModified) {
        const probe = await this.fetchOverHttp(url, signal, known);
        if (probe.status === 304) return probe;
      }
      return this.render(url, signal);
    }
    const fetched = await this.fetchPage(url, signal, known);
    if (fetched.status === 304 || (known && hashOf(fetched.text) === known.contentHash)) return fetched;
    if (renderer === 'auto' && fetched.status < 400 && isHtml(fetched.contentType)) {
      const outcome = await this.extractor.extract({ html: fetched.text, url: fetched.url, unlessShell: true });
      return 'page' in outcome ? { ...fetched, extracted: outcome.page } : this.render(url, signal, fetched.response);
    }
    return fetched;
  }

  /**
   * The page over HTTP, following immediate meta refreshes as a browser would (rustdoc's redirect stubs): the page is
   * then the one they lead to, under its own URL, with no Chromium needed to find it.
   */
  private async fetchPage(url: string, signal?: AbortSignal, known?: PageValidators): Promise<RawPage> {
    let page = await this.fetchOverHttp(url, signal, known);
    for (let hops = 0; hops < MAX_REFRESH_REDIRECTS && page.status === 200 && isHtml(page.contentType); hops++) {
      const target = refreshTarget(page.text, page.url);
      if (!target) break;
      page = await this.fetchOverHttp(target, signal);
    }
    return page;
  }

  private async fetchOverHttp(url: string, signal?: AbortSignal, known?: PageValidators): Promise<RawPage> {
    const headers = conditionalHeaders(known);
    const response = await safeFetch(url, {
      policy: this.deps.policy,
      timeoutMs: this.deps.timeoutMs,
      maxBytes: this.deps.maxBytes,
      signal,
      headers,
    });
    if (response.status === 304) {
      return {
        url: response.url,
        status: 304,
        contentType: 'text/html',
        text: '',
        renderedWith: 'http',
        headers: response.headers,
      };
    }
    if (!isHtml(response.contentType) && !TEXT_TYPES.has(response.contentType)) {
      throw new AppError('UNSUPPORTED_CONTENT', `unsupported content type ${response.contentType}`, 422, {
        retryable: false,
      });
    }
    const text = decodeDocument(response.body, response.headers['content-type'], isHtml(response.contentType));
    return {
      url: response.url,
      status: response.status,
      contentType: response.contentType,
      text,
      renderedWith: 'http',
      headers: response.headers,
      response,
    };
  }

  private async render(url: string, signal?: AbortSignal, document?: SafeResponse): Promise<RawPage> {
    const page = await this.deps.browser().render(url, { timeoutMs: this.deps.timeoutMs, signal, document });
    return {
      url: page.url,
      status: page.status,
      contentType: 'text/html',
      text: page.html,
      renderedWith: 'browser',
      headers: page.headers ?? {},
    };
  }

  /** HTML is extracted to markdown; markdown and plain text are the content as they are. */
  private async toLoadedPage(page: RawPage): Promise<LoadedPage> {
    const { url, status, renderedWith, text } = page;
    if (!isHtml(page.contentType)) return textPage(page);
    const extracted = page.extracted ?? (await this.extract(text, url));
    return {
      url,
      status,
      renderedWith,
      text,
      markdown: extracted.markdown,
      title: extracted.title || url,
      links: extracted.links,
      landmark: extracted.landmark,
      ...(extracted.lostContent ? { lostContent: extracted.lostContent } : {}),
    };
  }

  private async extract(html: string, url: string): Promise<ExtractedPage> {
    const outcome = await this.extractor.extract({ html, url });
    if (!('page' in outcome))
      throw new Error('extraction without a shell check answered that the page needs a browser');
    return outcome.page;
  }
}

const hashOf = (text: string) => createHash('sha256').update(text).digest('hex');

function conditionalHeaders(known: PageValidators | undefined): Record<string, string> | undefined {
  if (!known?.etag && !known?.lastModified) return undefined;
  return {
    ...(known.etag ? { 'if-none-match': known.etag } : {}),
    ...(known.lastModified ? { 'if-modified-since': known.lastModified } : {}),
  };
}

/** The page's validators now: a 304 keeps the known hash (and any validator it does not renew). */
function validatorsOf(raw: RawPage, known: PageValidators | undefined): PageValidators {
  const etag = raw.headers.etag ?? (raw.status === 304 ? known?.etag : undefined);
  const lastModified = raw.headers['last-modified'] ?? (raw.status === 304 ? known?.lastModified : undefined);
  const contentHash = raw.status === 304 && known ? known.contentHash : hashOf(raw.text);
  return { ...(etag ? { etag } : {}), ...(lastModified ? { lastModified } : {}), contentHash };
}

/** Markdown and plain text are the content as they are. */
function textPage(page: RawPage): LoadedPage {
  const { url, status, renderedWith, text } = page;
  const heading = /^#\s+(.+)$/m.exec(text)?.[1]?.trim();
  const title = heading ?? new URL(url).pathname.split('/').filter(Boolean).pop() ?? url;
  return { url, status, renderedWith, text, markdown: text, title, links: [], landmark: true };
}

/**
 * A page that cannot be fetched is a client-side problem of the URL (400). Only a reset connection is tried again (the
 * page job's next attempt): a busy server drops connections now and then, where a refusal or a timeout is an answer.
 */
export function toPageError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof BlockedUrlError) return new AppError('URL_BLOCKED', error.message, 400, { retryable: false });
  if (error instanceof FetchFailedError) {
    return new AppError('URL_UNREACHABLE', error.message, 400, { retryable: error.kind === 'connection-reset' });
  }
  const message = error instanceof Error ? error.message.split('\n')[0]! : String(error);
  return new AppError('PAGE_FAILED', message, 400, { retryable: false });
}
