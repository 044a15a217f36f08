import { chromium, errors, type Browser, type BrowserContext, type Page, type Response } from 'playwright-core';
import { BlockedUrlError, type AddressPolicy } from '../fetch/address-policy';
import { FetchFailedError, describeNetworkError } from '../fetch/fetch-failed-error';
import { safeFetch } from '../fetch/safe-fetch';
import { guardContextNetwork, type NetworkGuard } from './guard-network';
import { RenderFailedError } from './render-failed-error';
import { Semaphore } from './semaphore';
import { startSinkholeProxy, type SinkholeProxy } from './sinkhole-proxy';
import { waitForPageToSettle } from './wait-for-settled';

export { RenderFailedError } from './render-failed-error';

export interface RenderedPage {
  /** The final URL, after redirects. */
  url: string;
  status: number;
  html: string;
  title: string;
  /** Request URLs refused by the policy. */
  blocked: string[];
}

export interface BrowserPoolOptions {
  chromiumPath: string;
  maxPages: number;
  policy: AddressPolicy;
  logger?: { warn(obj: object, msg: string): void; debug(obj: object, msg: string): void };
}

export interface RenderOptions {
  /** For the page's own work, from navigation to reading the DOM; time spent waiting for a free page is not counted. */
  timeoutMs?: number;
  /** Stops the render (and frees its page) when aborted, e.g. because the crawl was cancelled. */
  signal?: AbortSignal;
}

const DEFAULT_RENDER_TIMEOUT_MS = 30_000;
const LAUNCH_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  '--disable-dev-shm-usage',
];

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n')[0] ?? message).replace(/^[\w.]+: /, '');
}

/** Rejects with a RenderFailedError once `timeoutMs` passes, even if the page's scripts keep Chromium busy. */
function raceWithTimeout<T>(work: Promise<T>, url: string, timeoutMs: number, signal?: AbortSignal): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RenderFailedError(url, `timed out after ${timeoutMs}ms`)), timeoutMs);
    onAbort = () => reject(signal!.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  work.catch(() => undefined);
  return Promise.race([work, timeout]).finally(() => {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  });
}

/** Chromium's own background calls (component updates, sign-in) are expected: they are not worth a warning. */
const CHROMIUM_BACKGROUND_HOSTS = /(^|\.)(google\.com|googleapis\.com|gvt1\.com|gstatic\.com)$/i;

/** Whatever else reaches the sinkhole is worth one line per host. */
function reportOncePerHost(logger: BrowserPoolOptions['logger']): (host: string, requestLine: string) => void {
  const seen = new Set<string>();
  return (host, requestLine) => {
    if (seen.has(host)) return;
    seen.add(host);
    const level = CHROMIUM_BACKGROUND_HOSTS.test(host.replace(/:\d+$/, '')) ? 'debug' : 'warn';
    logger?.[level]({ host, request: requestLine.slice(0, 200) }, 'Chromium tried to connect outside the request guard; dropped');
  };
}

/** Renders pages in one lazily launched Chromium, at most `maxPages` at a time, each in a fresh context. */
export class BrowserPool {
  private readonly slots: Semaphore;
  private browser: Promise<Browser> | undefined;
  private launched: Browser | undefined;
  private proxy: SinkholeProxy | undefined;
  private closed = false;

  constructor(private readonly options: BrowserPoolOptions) {
    this.slots = new Semaphore(options.maxPages);
  }

  async render(url: string, options: RenderOptions = {}): Promise<RenderedPage> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_RENDER_TIMEOUT_MS;
    // Refused before a page is spent on it, and with our error rather than Chromium's.
    await this.options.policy.assertUrlAllowed(url).catch((error: unknown) => {
      throw error instanceof BlockedUrlError ? error : describeNetworkError(new URL(url), error);
    });
    const release = await this.slots.acquire();
    try {
      options.signal?.throwIfAborted();
      const context = await this.openContext(url);
      try {
        return await raceWithTimeout(this.renderInContext(context, url, timeoutMs), url, timeoutMs, options.signal);
      } catch (error) {
        if (options.signal?.aborted) throw options.signal.reason;
        throw this.describeFailure(url, error);
      } finally {
        await context.close().catch(() => undefined);
      }
    } finally {
      release();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const browser = await this.browser?.catch(() => undefined);
    this.browser = undefined;
    this.launched = undefined;
    await browser?.close().catch(() => undefined);
    await this.proxy?.close();
    this.proxy = undefined;
  }

  /** Errors we raised say what happened; Playwright's (a crash mid-render) are wrapped so callers see one type. */
  private describeFailure(url: string, error: unknown): Error {
    if (error instanceof BlockedUrlError || error instanceof FetchFailedError || error instanceof RenderFailedError) return error;
    const detail = this.browser ? firstLine(error) : `the browser closed unexpectedly (${firstLine(error)})`;
    return new RenderFailedError(url, detail, { cause: error });
  }

  private async openContext(url: string): Promise<BrowserContext> {
    if (this.closed) throw new RenderFailedError(url, 'the browser pool is closed');
    for (let attempt = 1; ; attempt += 1) {
      let browser: Browser | undefined;
      try {
        browser = await this.getBrowser();
        return await browser.newContext({ serviceWorkers: 'block', javaScriptEnabled: true });
      } catch (error) {
        // A browser that died before its 'disconnected' event arrived: relaunch once rather than fail this render.
        if (browser && !browser.isConnected() && attempt === 1) {
          this.forgetBrowser(browser);
          continue;
        }
        throw new RenderFailedError(url, `could not open a browser page: ${firstLine(error)}`, { cause: error });
      }
    }
  }

  private async renderInContext(context: BrowserContext, url: string, timeoutMs: number): Promise<RenderedPage> {
    const startedAt = Date.now();
    const remainingMs = () => timeoutMs - (Date.now() - startedAt);
    // Half the budget per subresource, so one that hangs fails on its own and `load` still fires in time.
    const guard = await guardContextNetwork(context, { policy: this.options.policy, timeoutMs: Math.ceil(timeoutMs / 2) });
    try {
      // Fetched here, redirects and all, so the page is opened at the final URL and relative links resolve against it.
      const document = await safeFetch(url, { policy: this.options.policy, timeoutMs });
      guard.serveDocument(document);
      const page = await context.newPage();
      const response = await this.navigate(page, guard, document.url, timeoutMs);
      // Bounded so that a page that never settles still leaves time to read it.
      const settleMs = Math.max(0, Math.min(2_000, (remainingMs() - 500) / 2));
      if (settleMs > 0) await waitForPageToSettle(page, { networkIdleMs: settleMs, domQuietMaxMs: settleMs });
      const { html, title } = await this.readPage(page);
      return { url: page.url(), status: response?.status() ?? 0, html, title, blocked: [...guard.blocked] };
    } finally {
      guard.dispose();
    }
  }

  private async navigate(page: Page, guard: NetworkGuard, url: string, timeoutMs: number): Promise<Response | null> {
    try {
      return await page.goto(url, { waitUntil: 'load', timeout: timeoutMs });
    } catch (error) {
      // Our handler refused or failed the document itself: that error says more than net::ERR_BLOCKED_BY_CLIENT.
      const cause = guard.navigationError();
      if (cause) throw cause;
      if (error instanceof errors.TimeoutError) throw new RenderFailedError(url, `timed out after ${timeoutMs}ms`, { cause: error });
      if (!page.context().browser()?.isConnected()) throw new RenderFailedError(url, 'the browser closed unexpectedly', { cause: error });
      throw new RenderFailedError(url, firstLine(error), { cause: error });
    }
  }

  /** A script may navigate the page while it is read; the new document is then read once it has loaded. */
  private async readPage(page: Page): Promise<{ html: string; title: string }> {
    try {
      return { html: await page.content(), title: await page.title() };
    } catch {
      await page.waitForLoadState('load').catch(() => undefined);
      return { html: await page.content(), title: await page.title() };
    }
  }

  private getBrowser(): Promise<Browser> {
    if (this.browser) return this.browser;
    const launching = this.launchBrowser();
    this.browser = launching;
    launching.then(
      (browser) => {
        if (this.browser === launching) this.launched = browser;
        browser.on('disconnected', () => {
          this.forgetBrowser(browser);
          if (!this.closed) this.options.logger?.warn({ chromiumPath: this.options.chromiumPath }, 'Chromium disconnected; the next render relaunches it');
        });
        // It may have died between launching and now, before the listener existed.
        if (!browser.isConnected()) this.forgetBrowser(browser);
      },
      () => {
        if (this.browser === launching) this.browser = undefined;
      },
    );
    return launching;
  }

  /** Drops the browser if it is still the current one, so the next render launches a new one. */
  private forgetBrowser(browser: Browser): void {
    if (this.launched !== browser) return;
    this.launched = undefined;
    this.browser = undefined;
  }

  private async launchBrowser(): Promise<Browser> {
    this.proxy ??= await startSinkholeProxy(reportOncePerHost(this.options.logger));
    return chromium.launch({
      executablePath: this.options.chromiumPath,
      headless: true,
      args: LAUNCH_ARGS,
      // Every request is fulfilled by our route handler; anything Chromium would fetch itself meets the sinkhole.
      proxy: { server: this.proxy.url },
    });
  }
}
