import { describeCrawlFrontierContract } from '@docshelf/testing/contracts/crawl-frontier.contract';
import { announceContractTarget } from '@docshelf/testing/targets/announce-target';
import { deleteRedisKeys } from '@docshelf/testing/e2e/redis-keys';
import { RedisCrawlFrontier } from './redis-crawl-frontier';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

announceContractTarget('CrawlFrontier', 'RedisCrawlFrontier', REDIS_URL);
describeCrawlFrontierContract('RedisCrawlFrontier', async () => {
  const prefix = `docshelf-test-frontier-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const frontier = new RedisCrawlFrontier(REDIS_URL, prefix);
  return {
    frontier,
    cleanup: async () => {
      frontier.close();
      await deleteRedisKeys(prefix);
    },
  };
});
