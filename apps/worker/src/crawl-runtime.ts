import {
  AppError,
  DEFAULT_REPETITION_RULE,
  type ArchiveSource,
  type CallbackSender,
  type CrawlFrontier,
  type GitSource,
  type HostThrottle,
  type PageLoader,
  type RepetitionRule,
} from '@docshelf/core';
import type { Config } from '@docshelf/config';
import {
  ArchiveSiteSource,
  BrowserPool,
  ChromiumPageLoader,
  createAddressPolicy,
  createPageExtractor,
  findChromium,
  GitCliGitSource,
  HttpCallbackSender,
} from '@docshelf/crawler';
import { RedisCrawlFrontier, RedisHostThrottle } from '@docshelf/queue';
import type { Logger } from 'pino';

export interface CrawlRuntime {
  /** Pages for crawls and URL ingestion: the SSRF-checked fetch and a lazily launched Chromium. */
  pages: PageLoader;
  /** Callbacks go out under the same address policy as crawls. */
  callbacks: CallbackSender;
  /** Git remotes are read under the same address policy too. */
  git: GitSource;
  /** Uploaded archives are read with the crawl's extraction, so an uploaded site reads as crawling it does. */
  archives: ArchiveSource;
  /** Politeness across workers, through Redis. */
  throttle: HostThrottle;
  /** Which pages of each crawl are known and handed out, through Redis. */
  frontier: CrawlFrontier;
  /** Politeness, CRAWL_MAX_DURATION_MS, and CRAWL_MAX_PAGES (also the most pages and files of an uploaded archive). */
  crawlLimits: { hostPagesPerSecond: number; crawlDelayMaxMs: number; maxDurationMs: number; maxPages: number };
  /** Which lines a crawl drops as repeated chrome (CRAWL_REPEATED_LINE_SHARE, CRAWL_REPEATED_LINE_MIN_PAGES). */
  repetition: RepetitionRule;
  close(): Promise<void>;
}

/** The SSRF policy and a lazily launched browser pool sized to this worker's crawl concurrency. */
export function createCrawlRuntime(
  config: Pick<
    Config,
    'chromiumPath' | 'privateHostAllowlist' | 'worker' | 'crawl' | 'git' | 'archive' | 'browser' | 'redis'
  >,
  logger: Logger,
): CrawlRuntime {
  const policy = createAddressPolicy({ allowlist: config.privateHostAllowlist });
  let pool: BrowserPool | undefined;
  const browser = () => {
    if (pool) return pool;
    const chromiumPath = findChromium(config.chromiumPath);
    if (!chromiumPath) {
      throw new AppError('BROWSER_UNAVAILABLE', 'No Chromium found: install chromium or set CHROMIUM_PATH', 503, {
        retryable: false,
      });
    }
    pool = new BrowserPool({
      chromiumPath,
      maxPages: config.worker.concurrency.crawl,
      policy,
      logger,
      sandbox: config.browser.sandbox,
      recycleAfterPages: config.browser.recycleAfterPages,
      recycleAfterMb: config.browser.recycleAfterMb,
      pageMaxMb: config.crawl.pageMaxMemoryMb,
      maxBodyBytes: config.crawl.pageMaxBytes,
      pageTimeoutMs: config.crawl.pageTimeoutMs,
    });
    return pool;
  };
  const throttle = new RedisHostThrottle(config.redis.url, config.redis.prefix);
  const frontier = new RedisCrawlFrontier(config.redis.url, config.redis.prefix);
  const extractor = createPageExtractor(config.crawl.extractThreads, {
    // A page's extraction has the same budget as its fetch or render; past it the page fails alone.
    timeoutMs: config.crawl.pageTimeoutMs,
    onOutOfMemory: (url) =>
      logger.warn({ url }, "a page did not fit in an extraction thread's heap; it was extracted on the event loop"),
  });
  return {
    throttle,
    frontier,
    crawlLimits: {
      hostPagesPerSecond: config.crawl.hostPagesPerSecond,
      crawlDelayMaxMs: config.crawl.crawlDelayMaxS * 1000,
      maxDurationMs: config.crawl.maxDurationMs,
      maxPages: config.crawl.maxPages,
    },
    pages: new ChromiumPageLoader({
      policy,
      browser,
      timeoutMs: config.crawl.pageTimeoutMs,
      maxBytes: config.crawl.pageMaxBytes,
      extractor,
    }),
    callbacks: new HttpCallbackSender(policy),
    git: new GitCliGitSource({
      policy,
      limits: config.git,
      environment: config.git.environment,
    }),
    archives: new ArchiveSiteSource({ extractor, limits: config.archive }),
    repetition: { ...DEFAULT_REPETITION_RULE, ...config.crawl.repeatedLines },
    close: async () => {
      await Promise.all([pool?.close(), extractor.close()]);
      throttle.close();
      frontier.close();
    },
  };
}
