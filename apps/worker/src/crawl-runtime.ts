import { AppError } from '@docshelf/core';
import type { Config } from '@docshelf/config';
import { BrowserPool, createAddressPolicy, findChromium, type AddressPolicy } from '@docshelf/crawler';
import type { Logger } from 'pino';

export interface CrawlRuntime {
  policy: AddressPolicy;
  browser: () => BrowserPool;
  close(): Promise<void>;
}

/** The SSRF policy and a lazily launched browser pool sized to this worker's crawl concurrency. */
export function createCrawlRuntime(config: Pick<Config, 'chromiumPath' | 'privateHostAllowlist' | 'worker'>, logger: Logger): CrawlRuntime {
  const policy = createAddressPolicy({ allowlist: config.privateHostAllowlist });
  let pool: BrowserPool | undefined;
  return {
    policy,
    browser: () => {
      if (pool) return pool;
      const chromiumPath = findChromium(config.chromiumPath);
      if (!chromiumPath) {
        throw new AppError('BROWSER_UNAVAILABLE', 'No Chromium found: install chromium or set CHROMIUM_PATH', 503, { retryable: false });
      }
      pool = new BrowserPool({ chromiumPath, maxPages: config.worker.concurrency.crawl, policy, logger });
      return pool;
    },
    close: async () => {
      await pool?.close();
    },
  };
}
