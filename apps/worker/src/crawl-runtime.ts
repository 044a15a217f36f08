import { AppError, type CallbackSender, type PageLoader } from '@docshelf/core';
import type { Config } from '@docshelf/config';
import { BrowserPool, ChromiumPageLoader, createAddressPolicy, findChromium, HttpCallbackSender } from '@docshelf/crawler';
import type { Logger } from 'pino';

export interface CrawlRuntime {
  /** Pages for crawls and URL ingestion: the SSRF-checked fetch and a lazily launched Chromium. */
  pages: PageLoader;
  /** Callbacks go out under the same address policy as crawls. */
  callbacks: CallbackSender;
  close(): Promise<void>;
}

/** The SSRF policy and a lazily launched browser pool sized to this worker's crawl concurrency. */
export function createCrawlRuntime(
  config: Pick<Config, 'chromiumPath' | 'privateHostAllowlist' | 'worker' | 'crawl'>,
  logger: Logger,
): CrawlRuntime {
  const policy = createAddressPolicy({ allowlist: config.privateHostAllowlist });
  let pool: BrowserPool | undefined;
  const browser = () => {
    if (pool) return pool;
    const chromiumPath = findChromium(config.chromiumPath);
    if (!chromiumPath) {
      throw new AppError('BROWSER_UNAVAILABLE', 'No Chromium found: install chromium or set CHROMIUM_PATH', 503, { retryable: false });
    }
    pool = new BrowserPool({ chromiumPath, maxPages: config.worker.concurrency.crawl, policy, logger });
    return pool;
  };
  return {
    pages: new ChromiumPageLoader({ policy, browser, timeoutMs: config.crawl.pageTimeoutMs }),
    callbacks: new HttpCallbackSender(policy),
    close: async () => {
      await pool?.close();
    },
  };
}
