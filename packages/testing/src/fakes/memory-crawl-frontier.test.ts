import { MemoryCrawlFrontier } from './memory-crawl-frontier';
import { describeCrawlFrontierContract } from '../contracts/crawl-frontier.contract';
import { announceContractTarget } from '../targets/announce-target';

// The fake that core's fast tests use passes the same contract as the worker's Redis frontier.
announceContractTarget('CrawlFrontier', 'memory (test fake)', 'in-process Map');
describeCrawlFrontierContract('MemoryCrawlFrontier', async () => ({
  frontier: new MemoryCrawlFrontier(),
  cleanup: async () => undefined,
}));
