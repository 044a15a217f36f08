export { startWorkers, type RunningWorkers, type WorkerOptions } from './worker';
export { createCrawlRuntime, type CrawlRuntime } from './crawl-runtime';
export type { WorkerDeps } from './worker-deps';
