import { chromium, type Browser } from 'playwright-core';
import { chromiumSandboxUsable } from './chromium-sandbox';
import { ProcessWatch } from './process-watch';
import { RenderFailedError } from './render-failed-error';
import { startSinkholeProxy, type SinkholeProxy } from './sinkhole-proxy';

/** What launching and watching Chromium needs of the pool's options (BrowserPoolOptions). */
export interface ChromiumOptions {
  chromiumPath: string;
  logger?: {
    warn(obj: object, msg: string): void;
    debug(obj: object, msg: string): void;
    info?(obj: object, msg: string): void;
  };
  /** CHROMIUM_SANDBOX: `auto` uses Chromium's sandbox where the kernel and user allow it, `on` requires it, `off` never. */
  sandbox?: 'auto' | 'on' | 'off';
  /** BROWSER_RECYCLE_MB: a browser whose processes together pass this PSS (after 50 pages) is replaced once its pages are done. */
  recycleAfterMb?: number;
  /** PAGE_MAX_MEMORY_MB: a page whose renderer passes this RSS is stopped, failing that page only. */
  pageMaxMb?: number;
}

/** One launched Chromium and what the pool knows of it; `Site` is what the pool keeps per origin. */
export interface ChromiumInstance<Site> {
  browser: Browser;
  /** Pages started in it. */
  pages: number;
  /** Tabs open in it now. */
  active: number;
  /** Its sites' contexts, by origin (being created or ready). */
  sites: Map<string, Promise<Site>>;
  /** Replaced: takes no new page and closes when its last one is done. */
  retiring: boolean;
  /** Its root process, found by the marker in its command line (Linux), for the memory watch. */
  marker: string;
}

const MIN_PAGES_BEFORE_SIZE_RECYCLE = 50;
const LAUNCH_ARGS = [
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  '--disable-dev-shm-usage',
  '--disable-extensions',
  '--mute-audio',
];

/** Chromium's own background calls (component updates, sign-in) are expected: they are not worth a warning. */
const CHROMIUM_BACKGROUND_HOSTS = /(^|\.)(google\.com|googleapis\.com|gvt1\.com|gstatic\.com)$/i;

/** Whatever else reaches the sinkhole is worth one line per host. */
function reportOncePerHost(logger: ChromiumOptions['logger']): (host: string, requestLine: string) => void {
  const seen = new Set<string>();
  return (host, requestLine) => {
    if (seen.has(host)) return;
    seen.add(host);
    const level = CHROMIUM_BACKGROUND_HOSTS.test(host.replace(/:\d+$/, '')) ? 'debug' : 'warn';
    logger?.[level](
      { host, request: requestLine.slice(0, 200) },
      'Chromium tried to connect outside the request guard; dropped',
    );
  };
}

/**
 * The Chromium processes of a pool: one current browser, launched on first use (with its sandbox when the machine
 * allows it, every connection it makes itself sent to a sinkhole proxy), replaced when it dies, grows past
 * `recycleAfterMb` or is retired by the pool; a retired browser closes when its last page is done. Its renderers'
 * memory is watched: one past `pageMaxMb` is stopped.
 */
export class ChromiumInstances<Site> {
  private current: Promise<ChromiumInstance<Site>> | undefined;
  private currentInstance: ChromiumInstance<Site> | undefined;
  private readonly instances = new Set<ChromiumInstance<Site>>();
  private proxy: SinkholeProxy | undefined;
  private closed = false;
  private sandbox: boolean | undefined;
  private readonly watch: ProcessWatch;

  /** `onDropped`: a browser retired or gone, whose idle tabs the pool closes. */
  constructor(
    private readonly options: ChromiumOptions,
    private readonly onDropped: (instance: ChromiumInstance<Site>) => void,
  ) {
    this.watch = new ProcessWatch({
      pageMaxMb: options.pageMaxMb ?? 1_024,
      reportAboveMb: options.recycleAfterMb,
      onRendererStopped: (marker, pid, mb) =>
        options.logger?.warn(
          { pid, rssMb: Math.round(mb), limitMb: options.pageMaxMb },
          'a page used too much memory; its renderer was stopped',
        ),
      onBrowserSize: (marker, mb) => {
        const instance = [...this.instances].find((i) => i.marker === marker);
        // A browser that is big from the start would be replaced by one as big: only growth over many pages counts.
        if (
          instance &&
          !instance.retiring &&
          instance.pages >= MIN_PAGES_BEFORE_SIZE_RECYCLE &&
          mb > (options.recycleAfterMb ?? Infinity)
        ) {
          options.logger?.info?.(
            { rssMb: Math.round(mb) },
            'Chromium passed BROWSER_RECYCLE_MB; replacing it once its pages are done',
          );
          this.retire(instance);
        }
      },
    });
  }

  /** Whether Chromium runs with its sandbox (known after the first launch). */
  get sandboxed(): boolean | undefined {
    return this.sandbox;
  }

  /** Whether the memory watch stopped a renderer lately: a page that crashed then was stopped for its size. */
  rendererStoppedRecently(): boolean {
    return this.watch.stoppedRecently();
  }

  /** The current browser, launched when there is none (or it is retiring or gone). */
  acquire(): Promise<ChromiumInstance<Site>> {
    const live = this.currentInstance;
    if (live && (live.retiring || !live.browser.isConnected())) this.clearCurrent();
    if (this.current) return this.current;
    const launching = this.launch();
    this.current = launching;
    launching.then(
      (instance) => {
        this.instances.add(instance);
        if (this.current === launching) this.currentInstance = instance;
        instance.browser.on('disconnected', () => {
          const wasCurrent = this.forget(instance);
          if (!this.closed && wasCurrent) {
            this.options.logger?.warn(
              { chromiumPath: this.options.chromiumPath },
              'Chromium disconnected; the next render relaunches it',
            );
          }
        });
        // It may have died between launching and now, before the listener existed.
        if (!instance.browser.isConnected()) this.forget(instance);
      },
      () => {
        if (this.current === launching) this.current = undefined;
      },
    );
    return launching;
  }

  /** Takes no new page in `instance`; it closes when its last page is done. */
  retire(instance: ChromiumInstance<Site>): void {
    if (instance.retiring) return;
    instance.retiring = true;
    if (this.currentInstance === instance) this.clearCurrent();
    this.onDropped(instance);
    if (instance.active === 0) void instance.browser.close().catch(() => undefined);
  }

  /** One of its tabs closed (or never opened). */
  done(instance: ChromiumInstance<Site>): void {
    instance.active -= 1;
    if (instance.retiring && instance.active === 0) void instance.browser.close().catch(() => undefined);
  }

  /** Drops the instance; returns whether it was the current one (a retired browser closing is expected). */
  forget(instance: ChromiumInstance<Site>): boolean {
    this.instances.delete(instance);
    this.watch.untrack(instance.marker);
    this.onDropped(instance);
    const wasCurrent = this.currentInstance === instance;
    if (wasCurrent) this.clearCurrent();
    return wasCurrent;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.watch.stop();
    this.clearCurrent();
    await Promise.all([...this.instances].map((i) => i.browser.close().catch(() => undefined)));
    this.instances.clear();
    await this.proxy?.close();
    this.proxy = undefined;
  }

  private clearCurrent(): void {
    this.current = undefined;
    this.currentInstance = undefined;
  }

  private async launch(): Promise<ChromiumInstance<Site>> {
    this.proxy ??= await startSinkholeProxy(reportOncePerHost(this.options.logger));
    this.sandbox ??= this.decideSandbox();
    const marker = `--docshelf-browser=${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
    const args = [...LAUNCH_ARGS, marker];
    if (!this.sandbox) args.push('--no-sandbox');
    if (this.options.pageMaxMb) args.push(`--js-flags=--max-old-space-size=${this.options.pageMaxMb}`);
    const browser = await chromium.launch({
      executablePath: this.options.chromiumPath,
      headless: true,
      args,
      chromiumSandbox: this.sandbox,
      // Every request is fulfilled by our route handler; anything Chromium would fetch itself meets the sinkhole.
      proxy: { server: this.proxy.url },
    });
    this.watch.track(marker);
    return { browser, pages: 0, active: 0, retiring: false, marker, sites: new Map() };
  }

  private decideSandbox(): boolean {
    const mode = this.options.sandbox ?? 'auto';
    if (mode === 'off') return false;
    const usable = chromiumSandboxUsable(this.options.chromiumPath);
    if (mode === 'on' && !usable.ok)
      throw new RenderFailedError(
        'about:blank',
        `CHROMIUM_SANDBOX=on but the sandbox cannot run here: ${usable.reason}`,
      );
    if (!usable.ok)
      this.options.logger?.warn(
        { reason: usable.reason },
        'Chromium runs without its sandbox (see docs/crawling.md, "Rendering untrusted pages")',
      );
    return usable.ok;
  }
}
