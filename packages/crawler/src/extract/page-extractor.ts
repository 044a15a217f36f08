import path from 'node:path';
import { Piscina } from 'piscina';
import extractTask, { type ExtractOutcome, type ExtractTask } from './extract.worker';

/** Where pages are extracted: on the caller's event loop, or in a pool of threads. */
export interface PageExtractor {
  extract(task: ExtractTask): Promise<ExtractOutcome>;
  close(): Promise<void>;
}

/** Extraction on the caller's own event loop. */
export const inlineExtractor: PageExtractor = {
  // Through a promise, so a failing extraction rejects as the threaded one does rather than throwing.
  extract: (task) => Promise.resolve(task).then(extractTask),
  close: () => Promise.resolve(),
};

/** Threads stay up this long after their last page, so a crawl's pages reuse them and an idle worker holds none. */
const IDLE_THREAD_MS = 30_000;

/**
 * Extraction in worker threads: parsing and converting a large page (Node's fs.html is 500 KB) takes tens of
 * milliseconds of CPU, which on the worker's one event loop would serialise every page it loads and hold up its
 * jobs. `threads` pages are extracted at once, each in a thread of its own.
 */
export function createThreadedExtractor(threads: number): PageExtractor {
  const sources = __filename.endsWith('.ts');
  const pool = new Piscina<ExtractTask, ExtractOutcome>({
    filename: path.join(__dirname, `extract.worker.${sources ? 'ts' : 'js'}`),
    minThreads: 0,
    maxThreads: threads,
    idleTimeout: IDLE_THREAD_MS,
    // Run from the TypeScript sources (tests, `npm run dev`), a thread compiles them as the main thread does.
    ...(sources ? { execArgv: ['--require', require.resolve('tsx/cjs'), '--conditions=@docshelf/source'] } : {}),
  });
  return {
    extract: (task) => pool.run(task),
    close: () => pool.destroy(),
  };
}

/** `threads` 0 extracts on the caller's event loop. */
export function createPageExtractor(threads: number): PageExtractor {
  return threads > 0 ? createThreadedExtractor(threads) : inlineExtractor;
}
