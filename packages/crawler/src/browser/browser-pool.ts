import pLimit, { type LimitFunction } from 'p-limit';
import pTimeout from 'p-timeout';
import { errors, type BrowserContext, type Page, type Response } from 'playwright-core';
import { BlockedUrlError, type AddressPolicy } from '../fetch/address-policy';
import { FetchFailedError, describeNetworkError } from '../fetch/fetch-failed-error';
import { safeFetch, type SafeResponse } from '../fetch/safe-fetch';
import { ChromiumInstances, type ChromiumInstance, type ChromiumOptions } from './chromium-instances';
import { DISABLE_WEBRTC_SCRIPT, guardContextNetwork, type ContextGuard, type NetworkGuard } from './guard-network';
import { RenderFailedError } from './render-failed-error';
import { SubresourceCache } from './subresource-cache';
import { SETTLE_TRACKER_SCRIPT, waitForPageToSettle } from './wait-for-settled';

export { RenderFailedError } from './render-failed-error';

export interface RenderedPage {
  /** The final URL, after redirects. */
  url: string;
  status: number;
  html: string;
  title: string;
  /** Request URLs refused by the policy. */
  blocked: string[];
  /** Milliseconds spent in each stage of the render, for profiling. */
  timings: Record<string, number>;
  /** Response headers of the document (lower-cased names), for the validators a re-crawl sends. */
  headers?: Record<string, string>;
}

export interface BrowserPoolOptions extends ChromiumOptions {
  maxPages: number;
  policy: AddressPolicy;
  /** BROWSER_RECYCLE_PAGES: a browser that has rendered this many pages is replaced once its pages are done. */
  recycleAfterPages?: number;
  /** PAGE_MAX_BYTES: limit on the document and on each subresource body. */
  maxBodyBytes?: number;
  /** PAGE_TIMEOUT_MS, of which each subresource gets half. */
  pageTimeoutMs?: number;
}

export interface RenderOptions {
  /** For the page's own work, from navigation to reading the DOM; time spent waiting for a free page is not counted. */
  timeoutMs?: number;
  /** Stops the render (and frees its page) when aborted, e.g. because the crawl was cancelled. */
  signal?: AbortSignal;
  /** The document, already fetched through the checked fetch (auto mode fetched it to see whether it needs a browser). */
  document?: SafeResponse;
}

const DEFAULT_RENDER_TIMEOUT_MS = 30_000;
const SETTLE_MAX_MS = 2_000;
// Pages get no way to open windows; any that appears anyway (a target=_blank click) is closed at once.
const NO_POPUPS_SCRIPT = `try { Object.defineProperty(globalThis, 'open', { value: () => null, configurable: false, writable: false }); } catch {}`;
const INIT_SCRIPT = [DISABLE_WEBRTC_SCRIPT, NO_POPUPS_SCRIPT, SETTLE_TRACKER_SCRIPT].join('\n');

/** One launched Chromium, with the sites open in it. */
type Instance = ChromiumInstance<Site>;

/** A browser context for the pages of one site (origin), shared by its tabs as one browser session would be. */
interface Site {
  instance: Instance;
  origin: string;
  context: BrowserContext;
  guard: ContextGuard;
  tabs: Tab[];
  /** Pages being opened in the context: a page that appears meanwhile may be one of them. */
  opening: Set<Promise<unknown>>;
  /** Clearing the cookies, once none of the site's tabs was rendering: the next render waits for it. */
  cleared: Promise<void>;
  /** Its last tab closed: the context is closing and takes no new tab. */
  closing: boolean;
}

/** A page of a site's context and its network guard, kept between renders of the site's pages. */
interface Tab {
  site: Site;
  page: Page;
  guard: NetworkGuard;
  busy: boolean;
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n')[0] ?? message).replace(/^[\w.]+: /, '');
}

/** Rejects with a RenderFailedError once `timeoutMs` passes, even if the page's scripts keep Chromium busy. */
function raceWithTimeout<T>(work: Promise<T>, url: string, timeoutMs: number, signal?: AbortSignal): Promise<T> {
  return pTimeout(work, {
    milliseconds: timeoutMs,
    message: new RenderFailedError(url, `timed out after ${timeoutMs}ms`),
    signal,
  });
}

/**
 * Renders pages in one lazily launched Chromium, at most `maxPages` at a time. The pages of one site share a context
 * (as one browser session would; its cookies are cleared whenever none of them is rendering), other sites never see
 * it; a tab is kept for the site's next page. Stylesheets and scripts are shared between pages through a short-lived
 * cache; images, media and fonts are never fetched. The
 * browser is replaced after `recycleAfterPages` pages or `recycleAfterMb` of RSS, and a page whose renderer grows past
 * `pageMaxMb` is stopped and fails alone.
 */
export class BrowserPool {
  private readonly slots: LimitFunction;
  private readonly tabs: Tab[] = [];
  private closed = false;
  private readonly cache = new SubresourceCache();
  private readonly instances: ChromiumInstances<Site>;

  constructor(private readonly options: BrowserPoolOptions) {
    this.slots = pLimit(options.maxPages);
    this.instances = new ChromiumInstances(options, (instance) => {
      for (const tab of this.tabs.filter((t) => t.site.instance === instance && !t.busy)) void this.closeTab(tab);
    });
  }

  /** Whether Chromium runs with its sandbox (known after the first launch). */
  get sandboxed(): boolean | undefined {
    return this.instances.sandboxed;
  }

  async render(url: string, options: RenderOptions = {}): Promise<RenderedPage> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_RENDER_TIMEOUT_MS;
    // Refused before a page is spent on it, and with our error rather than Chromium's.
    await this.options.policy.assertUrlAllowed(url).catch((error: unknown) => {
      throw error instanceof BlockedUrlError ? error : describeNetworkError(new URL(url), error);
    });
    return this.slots(async () => {
      options.signal?.throwIfAborted();
      const timings: Record<string, number> = {};
      let mark = performance.now();
      const lap = (stage: string) => {
        const now = performance.now();
        timings[stage] = (timings[stage] ?? 0) + (now - mark);
        mark = now;
      };
      for (let attempt = 1; ; attempt += 1) {
        const { tab, reused } = await this.takeTab(url, lap);
        let reusable = false;
        try {
          const page = await raceWithTimeout(
            this.renderInTab(tab, url, timeoutMs, lap, options.document),
            url,
            timeoutMs,
            options.signal,
          );
          reusable = true;
          return { ...page, timings };
        } catch (error) {
          if (options.signal?.aborted) throw options.signal.reason;
          // A kept tab whose browser died since its last page (before 'disconnected' arrived): once more, relaunched.
          if (reused && attempt === 1 && !tab.site.instance.browser.isConnected()) {
            this.instances.forget(tab.site.instance);
            continue;
          }
          throw this.describeFailure(url, error, tab.site.instance);
        } finally {
          tab.guard.reset();
          const { site } = tab;
          // A page that failed (timed out, crashed, navigated away) is not trusted with another render.
          if (!reusable || site.instance.retiring || !site.instance.browser.isConnected()) await this.closeTab(tab);
          tab.busy = false;
          // Cookies are cleared off the render's path once the site is idle; its next page waits for it.
          if (!site.tabs.some((t) => t.busy)) site.cleared = site.context.clearCookies().catch(() => undefined);
          lap('release');
        }
      }
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.tabs.length = 0;
    await this.instances.close();
  }

  /** Errors we raised say what happened; Playwright's (a crash mid-render) are wrapped so callers see one type. */
  private describeFailure(url: string, error: unknown, instance: Instance): Error {
    if (error instanceof BlockedUrlError || error instanceof FetchFailedError || error instanceof RenderFailedError)
      return error;
    const detail = instance.browser.isConnected()
      ? firstLine(error)
      : `the browser closed unexpectedly (${firstLine(error)})`;
    return new RenderFailedError(url, detail, { cause: error });
  }

  /**
   * A free tab of the site's context, or a new one in it (a new context for a site not open yet): pages of one site
   * share a context as they would in one browser session; other sites never see its state.
   */
  private async takeTab(url: string, lap: (stage: string) => void): Promise<{ tab: Tab; reused: boolean }> {
    const origin = new URL(url).origin;
    const usable = (t: Tab) =>
      !t.busy && !t.site.instance.retiring && t.site.instance.browser.isConnected() && !t.page.isClosed();
    const reuse = this.tabs.find((t) => usable(t) && t.site.origin === origin);
    if (reuse) {
      reuse.busy = true;
      await reuse.site.cleared;
      lap('reuse');
      return { tab: reuse, reused: true };
    }
    // At most maxPages tabs: a free one of another site (or a dead one) makes room.
    const spare = this.tabs.find((t) => !t.busy);
    if (spare && this.tabs.length >= this.options.maxPages) await this.closeTab(spare);
    const tab = await this.openTab(url, origin);
    lap('open');
    return { tab, reused: false };
  }

  private async openTab(url: string, origin: string): Promise<Tab> {
    if (this.closed) throw new RenderFailedError(url, 'the browser pool is closed');
    for (let attempt = 1; ; attempt += 1) {
      let instance: Instance | undefined;
      try {
        instance = await this.instances.acquire();
        instance.active += 1;
        let site = await this.siteOf(instance, origin);
        // Its last tab closed meanwhile, and its context with it: a fresh one.
        while (site.closing) site = await this.siteOf(instance, origin);
        const current = site;
        const opening = (async () => {
          await current.cleared;
          const page = await current.context.newPage();
          const tab: Tab = { site: current, page, guard: await current.guard.forPage(page), busy: true };
          current.tabs.push(tab);
          this.tabs.push(tab);
          return tab;
        })();
        current.opening.add(opening);
        return await opening.finally(() => current.opening.delete(opening));
      } catch (error) {
        if (instance) this.instances.done(instance);
        // A browser that died before its 'disconnected' event arrived: relaunch once rather than fail this render.
        if (instance && !instance.browser.isConnected() && attempt === 1) {
          this.instances.forget(instance);
          continue;
        }
        throw new RenderFailedError(url, `could not open a browser page: ${firstLine(error)}`, { cause: error });
      }
    }
  }

  /** The context of `origin` in `instance`, created (with its init script and network guard) on first use. */
  private siteOf(instance: Instance, origin: string): Promise<Site> {
    const known = instance.sites.get(origin);
    if (known) return known;
    const creating = (async (): Promise<Site> => {
      const context = await instance.browser.newContext({
        serviceWorkers: 'block',
        javaScriptEnabled: true,
        acceptDownloads: false,
      });
      await context.addInitScript(INIT_SCRIPT);
      // Half the budget per subresource, so one that hangs fails on its own and `load` still fires in time.
      const guard = await guardContextNetwork(context, {
        policy: this.options.policy,
        timeoutMs: Math.ceil((this.options.pageTimeoutMs ?? DEFAULT_RENDER_TIMEOUT_MS) / 2),
        maxBytes: this.options.maxBodyBytes,
        cache: this.cache,
      });
      const site: Site = {
        instance,
        origin,
        context,
        guard,
        tabs: [],
        opening: new Set(),
        cleared: Promise.resolve(),
        closing: false,
      };
      // Windows a page opens anyway (a target=_blank link clicked by a script) are closed before they load anything;
      // the pool's own new tabs are told apart once their opening is done.
      context.on('page', (other) => {
        void Promise.allSettled([...site.opening]).then(() => {
          if (!site.tabs.some((t) => t.page === other)) void other.close().catch(() => undefined);
        });
      });
      return site;
    })();
    instance.sites.set(origin, creating);
    creating.catch(() => instance.sites.delete(origin));
    return creating;
  }

  private async closeTab(tab: Tab): Promise<void> {
    const index = this.tabs.indexOf(tab);
    if (index === -1) return;
    this.tabs.splice(index, 1);
    const { site } = tab;
    site.tabs.splice(site.tabs.indexOf(tab), 1);
    tab.guard.dispose();
    // A site left without tabs gives its context up: the next page of it starts a fresh session.
    if (site.tabs.length === 0 && site.opening.size === 0) {
      site.closing = true;
      site.instance.sites.delete(site.origin);
      await site.context.close().catch(() => undefined);
    } else {
      await tab.page.close().catch(() => undefined);
    }
    this.instances.done(site.instance);
  }

  private async renderInTab(
    tab: Tab,
    url: string,
    timeoutMs: number,
    lap: (stage: string) => void,
    prefetched?: SafeResponse,
  ): Promise<Omit<RenderedPage, 'timings'>> {
    const startedAt = Date.now();
    const remainingMs = () => timeoutMs - (Date.now() - startedAt);
    const { page, guard } = tab;
    const { instance } = tab.site;
    instance.pages += 1;
    if (instance.pages >= (this.options.recycleAfterPages ?? Infinity)) this.instances.retire(instance);
    // Fetched here, redirects and all, so the page is opened at the final URL and relative links resolve against it.
    const document =
      prefetched ??
      (await safeFetch(url, { policy: this.options.policy, timeoutMs, maxBytes: this.options.maxBodyBytes }));
    guard.serveDocument(document);
    lap('fetch');
    let onCrash: (() => void) | undefined;
    const crashed = new Promise<never>((_, reject) => {
      onCrash = () => {
        const why = this.instances.rendererStoppedRecently()
          ? `the page used more than ${this.options.pageMaxMb} MB of memory and was stopped`
          : 'the page crashed';
        reject(new RenderFailedError(url, why));
      };
      page.once('crash', onCrash);
    });
    crashed.catch(() => undefined);
    const work = async () => {
      const response = await this.navigate(page, guard, document.url, timeoutMs);
      const loadedAt = performance.now();
      lap('goto');
      // Bounded so that a page that never settles still leaves time to read it.
      const settleMs = Math.max(0, Math.min(SETTLE_MAX_MS, (remainingMs() - 500) / 2));
      const settled =
        settleMs > 0
          ? await waitForPageToSettle(page, {
              maxMs: settleMs,
              inFlight: () => guard.inFlight(),
              lastNetworkAt: () => guard.lastNetworkAt(),
              loadedAt,
            })
          : null;
      lap('settle');
      const { html, title } = settled ?? (await this.readPage(page));
      lap('read');
      // A page that sent itself somewhere refused (meta refresh, a form, location=) shows Chromium's error page.
      const late = guard.navigationError();
      if (late) throw late;
      if (page.url().startsWith('chrome-error:'))
        throw new RenderFailedError(url, 'the page navigated to an address that could not be loaded');
      return {
        url: page.url(),
        status: response?.status() ?? 0,
        html,
        title,
        blocked: [...guard.blocked],
        headers: document.headers,
      };
    };
    try {
      return await Promise.race([work(), crashed]);
    } finally {
      page.off('crash', onCrash!);
    }
  }

  private async navigate(page: Page, guard: NetworkGuard, url: string, timeoutMs: number): Promise<Response | null> {
    try {
      return await page.goto(url, { waitUntil: 'load', timeout: timeoutMs });
    } catch (error) {
      // Our handler refused or failed the document itself: that error says more than net::ERR_BLOCKED_BY_CLIENT.
      const cause = guard.navigationError();
      if (cause) throw cause;
      if (error instanceof errors.TimeoutError)
        throw new RenderFailedError(url, `timed out after ${timeoutMs}ms`, { cause: error });
      if (!page.context().browser()?.isConnected())
        throw new RenderFailedError(url, 'the browser closed unexpectedly', { cause: error });
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
}
